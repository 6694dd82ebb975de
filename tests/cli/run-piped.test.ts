import { describe, expect, it } from 'vitest';
import { runPiped } from '../../src/cli/run-piped.js';
import { ScriptedModel } from '../../src/llm/scripted-model.js';
import { fixedClock, studio } from '../helpers/team.js';

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
      team: studio(), model, mode: 'fsm', json: false, write: (l) => out.push(l), sessionId: 's', clock: fixedClock(),
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
    const reason = await runPiped({ team: studio(), model, mode: 'fsm', json: true, write: (l) => out.push(l), sessionId: 's', lines: from([]), defaultBrief: 'demo brief' });
    expect(reason).toBe('awaiting_user');
    const events = out.map((l) => JSON.parse(l) as { type: string; brief?: string; reason?: string });
    expect(events[0]).toMatchObject({ type: 'session_started', brief: 'demo brief' });
    expect(events.at(-1)).toMatchObject({ type: 'session_ended', reason: 'awaiting_user' });
  });

  it('stops at !quit', async () => {
    const out: string[] = [];
    const reason = await runPiped({ team: studio(), model: new ScriptedModel([]), mode: 'fsm', json: false, write: (l) => out.push(l), sessionId: 's', lines: from(['!quit', 'never read']), defaultBrief: 'x' });
    expect(reason).toBe('user quit');
    expect(out.join('\n')).not.toContain('never read');
  });
});
