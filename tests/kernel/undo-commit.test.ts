import fsp from 'node:fs/promises';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import { ScriptedModel } from '../../src/llm/scripted-model.js';
import { openSession } from '../../src/session/open-session.js';
import { loadWorkflowOrThrow } from '../../src/workflow/load/load-workflow.js';
import { fixedClock, studio } from '../helpers/team.js';

const realRm = fsp.rm;
afterEach(() => {
  fsp.rm = realRm;
  syncBuiltinESMExports();
});

/** A workflow whose one tool-using agent takes two turns in a row, in the same workspace. */
function twoTurns(dir: string): string {
  writeFileSync(join(dir, 'roles.json'), JSON.stringify({ writer: { systemMessage: 'You write files.', tools: ['write_file'], max_tool_steps: 4 } }));
  writeFileSync(
    join(dir, 'twice.json'),
    JSON.stringify({
      workflow_name: 'twice',
      contexts: [{ name: 'c', starting_messages: [], max_length: 100000 }],
      agents: [{ agent_role: 'writer', context: 'c', role: 'assistant' }],
      states: [{ name: 'first', agent: 'writer', input: "'write one'", next_state: 'second' }, { name: 'second', agent: 'writer', input: "'write two'", next_state: 'stop' }, { name: 'stop' }],
    }),
  );
  return join(dir, 'twice.json');
}

const write = (path: string, content: string) => ({ toolCalls: [{ name: 'write_file', arguments: JSON.stringify({ path, content }) }] });

describe('undo logs of consecutive turns in one workspace', () => {
  it("the next turn's log waits until the last turn's log is dropped (a slow drop no longer removes the new log)", async () => {
    const base = mkdtempSync(join(tmpdir(), 'troupe-undo-commit-'));
    try {
      const flows = join(base, 'flows');
      mkdirSync(flows);
      const plan = loadWorkflowOrThrow(twoTurns(flows), { cwd: base, team: studio().loaded });
      // Dropping an undo log is slow here (a busy disk): its log file is gone, its directory not yet. Without
      // waiting for it, the second turn finds no log, makes its own in that directory, and loses it.
      let dropped: () => void = () => {};
      const firstDrop = new Promise<void>((resolve) => (dropped = resolve));
      fsp.rm = (async (path: Parameters<typeof realRm>[0], options?: Parameters<typeof realRm>[1]) => {
        if (!String(path).includes(join('workspaces', '.undo', 'writer'))) return realRm(path, options);
        await realRm(join(String(path), 'undo.json'), { force: true });
        await new Promise((r) => setTimeout(r, 50));
        await realRm(path, options);
        dropped();
      }) as typeof realRm;
      syncBuiltinESMExports();
      // The second turn's model answers once the first turn's log is gone for good.
      const model = new ScriptedModel([write('one.txt', '1'), { text: 'wrote one' }, { ...write('two.txt', '2'), hold: firstDrop }, { text: 'wrote two' }]);
      const root = join(base, 'run');
      const session = await openSession({ team: studio(), workflow: plan, model, id: 'undo', clock: fixedClock(), env: { TROUPE_MODEL: 'test-model' }, workspaceRoot: root });
      const events: TroupeEvent[] = [];
      session.subscribe((e) => events.push(e));
      session.start('go');
      await session.settled();
      await session.stop();
      expect(events.filter((e) => e.type === 'error')).toEqual([]);
      expect(events.filter((e) => e.type === 'session_ended')).toHaveLength(1);
      expect(readFileSync(join(root, 'workspaces', 'writer', 'two.txt'), 'utf8')).toBe('2');
      expect(existsSync(join(root, 'workspaces', '.undo'))).toBe(false);
    } finally {
      rmSync(base, { recursive: true, force: true });
    }
  });
});
