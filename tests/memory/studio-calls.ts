import { agentById } from '../../src/engine/definition.js';
import { initialState } from '../../src/engine/step.js';
import type { PromptInput } from '../../src/memory/prompt-builder.js';
import type { Summariser } from '../../src/memory/summariser.js';
import { studio } from '../helpers/team.js';

/** The studio team the memory prompt tests call. */
export const team = studio();

/** A studio persona's call: a handoff quoting `inbox` (null: a call that quotes nothing), on a session whose brief is the lighthouse game. */
export function input(personaId: string, inbox: { from: string; text: string } | null): PromptInput {
  const persona = agentById(team.def, personaId)!;
  const session = { ...initialState(team.def, { id: 's' }), brief: 'A lighthouse keeper game' };
  const call = {
    turnId: 'tx',
    persona: personaId,
    path: persona.path,
    attempt: 1,
    inbox: inbox ? { kind: 'handoff' as const, from: inbox.from, text: inbox.text, approved: true } : { kind: 'continue' as const },
  };
  return { def: team.def, session, call, persona, personaPrompt: team.loaded.prompts[personaId] ?? '' } as PromptInput;
}

/** A summariser that answers at once (after a microtask), so summaries land between turns as with a fast model. */
export const summariser: Summariser = {
  summarise: async (job) =>
    job.kind === 'segment'
      ? { decisions: [`segment of ${job.turns.length} turns from ${job.turns[0]!.turn}`], discussions: ['the tide chart'], pending: [] }
      : { decisions: [`merged ${job.summaries.length} summaries`], discussions: [], pending: ['playtest'] },
};
