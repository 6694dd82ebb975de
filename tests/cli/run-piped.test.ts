import { describe, expect, it } from 'vitest';
import { runPiped } from '../../src/cli/run-piped.js';
import { ScriptedModel } from '../../src/llm/scripted-model.js';
import { fixedClock, studio } from '../helpers/team.js';
import { buildRunner } from '../../src/runtime/build-runner.js';
import type { ChatModel } from '../../src/llm/chat-model.js';

const piped = (model: ChatModel) => {
  const team = studio();
  return { team, runner: buildRunner({ team, model, sessionId: 's', clock: fixedClock() }).runner };
};

async function* from(lines: string[]): AsyncIterable<string> {
  for (const l of lines) yield l;
}

describe('runPiped', () => {
  it('reads the brief and commands line by line and prints the transcript', async () => {
    const model = new ScriptedModel([
      { text: 'Concept.', directive: { transition: 'RESPOND_TO_USER' } },
      { text: 'CEO view.', directive: { transition: 'COMPLETE' } },
    ]);
    const out: string[] = [];
    const reason = await runPiped({
      ...piped(model), json: false, write: (l) => out.push(l),
      lines: from(['a bee game', '', '!handoff nobody', '!handoff ceo', '!status', '!approve']), defaultBrief: 'unused',
    });
    const text = out.join('\n');
    expect(reason).toBe("completed: CEO's result approved by the user");
    expect(text).toContain('Brief: a bee game');
    expect(text).toContain('unknown persona "nobody"; known:');
    expect(text).toContain('[status]\nstate: STRATEGIC › CEO');
    expect(model.calls[1]!.meta).toMatchObject({ persona: 'ceo', inbox: 'user_requested' });
  });

  it('runs the default brief on empty input and ends waiting for the user without crashing', async () => {
    const model = new ScriptedModel([{ text: 'Hi.', directive: { transition: 'RESPOND_TO_USER' } }]);
    const out: string[] = [];
    const reason = await runPiped({ ...piped(model), json: true, write: (l) => out.push(l), lines: from([]), defaultBrief: 'demo brief' });
    expect(reason).toBe('awaiting_user');
    const events = out.map((l) => JSON.parse(l) as { type: string; brief?: string; reason?: string });
    expect(events[0]).toMatchObject({ type: 'session_started', brief: 'demo brief' });
    expect(events.at(-1)).toMatchObject({ type: 'session_ended', reason: 'awaiting_user' });
  });

  it('stops at !quit', async () => {
    const out: string[] = [];
    const reason = await runPiped({ ...piped(new ScriptedModel([])), json: false, write: (l) => out.push(l), lines: from(['!quit', 'never read']), defaultBrief: 'x' });
    expect(reason).toBe('user_left');
    expect(out.join('\n')).not.toContain('never read');
  });
});
