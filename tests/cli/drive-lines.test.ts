import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { attachOutput } from '../../src/cli/attach-output.js';
import { driveLines } from '../../src/cli/drive-lines.js';
import { ScriptedModel } from '../../src/llm/scripted-model.js';
import { studioRunner } from '../helpers/team.js';

const input = (lines: string[]) => Readable.from(lines.length ? [`${lines.join('\n')}\n`] : []);

describe('driveLines', () => {
  it('reads the brief and commands line by line and prints the transcript', async () => {
    const model = new ScriptedModel([
      { text: 'Concept.', directive: { transition: 'RESPOND_TO_USER' } },
      { text: 'CEO view.', directive: { transition: 'COMPLETE' } },
    ]);
    const { runner } = await studioRunner(model);
    const out: string[] = [];
    attachOutput(runner, { json: false, write: (l) => out.push(l) });
    const driven = await driveLines(runner, { json: false, write: (l) => out.push(l), input: input(['a bee game', '', '!handoff nobody', '!handoff ceo', '!status', '!approve']) });
    const text = out.join('\n');
    expect(driven).toEqual({ quit: false, lines: 5, refused: 1 });
    expect(runner.getSnapshot().endReason).toBe("completed: CEO's result approved by the user");
    expect(text).toContain('Brief: a bee game');
    expect(text).toContain('unknown persona "nobody"; known:');
    expect(text).toContain('[status]\nstate: STRATEGIC › CEO');
    expect(model.calls[1]!.meta).toMatchObject({ persona: 'ceo', inbox: 'user_requested' });
  });

  it('stops at !quit, leaving the rest unread', async () => {
    const { runner } = await studioRunner(new ScriptedModel([]));
    const out: string[] = [];
    const driven = await driveLines(runner, { json: false, write: (l) => out.push(l), input: input(['!quit', 'never read']) });
    expect(driven).toEqual({ quit: true, lines: 1, refused: 0 });
    expect(out.join('\n')).not.toContain('never read');
  });

  it("names the command as the user started troupe in a command's output (!help's hints)", async () => {
    const { runner } = await studioRunner(new ScriptedModel([]));
    const out: string[] = [];
    await driveLines(runner, { json: false, write: (l) => out.push(l), input: input(['!help']), troupe: () => 'node dist/cli.js' });
    expect(out.join('\n')).toContain('resume one with: node dist/cli.js resume <id>');
    expect(out.join('\n')).not.toContain('troupe resume');
  });
});
