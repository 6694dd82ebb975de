import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../src/commands/catalog.js';
import { parseLine } from '../../src/commands/parse.js';
import type { EngineEvent } from '../../src/engine/event-map.js';
import type { EngineInput } from '../../src/engine/input-events.js';
import { initialState, step } from '../../src/engine/step.js';
import { compileWorkflow } from '../../src/workflow/run/compile.js';
import type { WorkflowPlan } from '../../src/workflow/run/plan.js';
import { studio } from '../helpers/team.js';
import { state, workflowPlan } from '../helpers/workflow-plan.js';

// Issue 22, item 3: `!handoff CEO` in a workflow said `unknown persona "CEO"` (the parse step resolved it
// against the workflow's agents); team commands must reach the workflow policy, which says they have no
// meaning there.

const plan: WorkflowPlan = workflowPlan({
  name: 'tiny',
  input: { name: 'task' },
  output: { name: 'result' },
  contexts: [{ name: 'c', starting: [], maxLength: 1000 }],
  agents: [{ id: 'coder', context: 'c', role: 'assistant', name: 'Coder', systemMessage: '', model: 'base', parsingTools: [], requestUserInput: false, tools: [], maxToolSteps: 20 }],
  states: [state({ name: 'code', agent: 'coder' })],
  start: 'code',
});

describe('team commands in a workflow session', () => {
  const def = compileWorkflow(plan);

  for (const line of ['!handoff CEO', '!call_agent ceo what now?', '!switch_to STRATEGIC', '!rework tighter', '!simple', '!fsm']) {
    it(`${line} reaches the workflow policy, which answers that it is a team command`, () => {
      const parsed = parseLine(line, def);
      expect(parsed.kind).toBe('engine');
      const input = parsed as { input: EngineInput; name: string; args: string[] };
      const started = step(def, initialState(def, { id: 'w' }), { type: 'start', brief: 'a task' }).session;
      const { session, effects } = step(def, started, { ...input.input, command: { name: input.name, args: input.args } } as EngineInput);
      const notes = effects.flatMap((fx) => (fx.type === 'emit' && fx.event.type === 'note' ? [(fx.event as Extract<EngineEvent, { type: 'note' }>).text] : []));
      expect(notes).toEqual([`!${input.name} is a team command; this session runs the workflow tiny (type to send it input, !continue, !quit)`]);
      // Nothing else happened: the coder's turn is still the one in flight.
      expect(session.inFlight?.turnId).toBe(started.inFlight?.turnId);
    });
  }

  it('in a team they are still resolved against the team: an unknown persona is named at once', () => {
    const { def: team } = studio();
    expect(parseLine('!handoff CEO', team)).toMatchObject({ kind: 'engine', input: { type: 'user_handoff', target: 'ceo' } });
    expect(parseLine('!handoff nobody', team)).toMatchObject({ kind: 'error', message: expect.stringMatching(/^unknown persona "nobody"; known: /) });
  });

  it('the catalogue says which commands steer a team', () => {
    expect(COMMANDS.filter((c) => c.steers === 'team').map((c) => c.name)).toEqual(['rework', 'handoff', 'switch_to', 'call_agent', 'simple', 'fsm']);
  });
});
