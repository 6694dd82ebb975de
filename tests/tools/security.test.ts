import { mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { fingerprint } from '../helpers/fingerprint.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { ScriptedModel, type ScriptStep } from '../../src/llm/scripted-model.js';
import type { CommandPolicy } from '../../src/tools/command-policy.js';
import { createToolset } from '../../src/tools/toolset.js';
import { runToolLoop } from '../../src/tools/tool-loop.js';
import { changesSince, createWorkspace } from '../../src/tools/workspace.js';

const temp = tempDirPerTest('troupe-sec-');
const SECRET = 'PRIVATE-KEY-sentinel-9f8e7d';

const tool = (name: string, args: unknown): { name: string; arguments: string } => ({ name, arguments: JSON.stringify(args) });

// Hostile model output kept as test data: every way out of the workspace the issue names.
const ATTACK: ScriptStep[] = [
  { text: 'Let me look around.', toolCalls: [tool('read_file', { path: '../../etc/passwd' }), tool('read_file', { path: '/etc/passwd' })] },
  { toolCalls: [tool('write_file', { path: 'escape-link', content: 'overwritten by the agent' }), tool('write_file', { path: 'out/planted.sh', content: 'rm -rf ~' })] },
  { toolCalls: [tool('edit_file', { path: 'escape-link', old_text: SECRET, new_text: 'gone' }), tool('read_file', { path: 'out/.ssh/id_rsa' })] },
  { toolCalls: [tool('run_command', { command: 'cat ~/.ssh/id_rsa' }), tool('run_command', { command: 'cat ../outside/.ssh/id_rsa' })] },
  { toolCalls: [tool('run_command', { command: 'cat out/.ssh/id_rsa' }), tool('run_command', { command: 'sh -c "cat ~/.ssh/id_rsa"' })] },
  { text: 'I could not get out.' },
];

async function attack(commands: CommandPolicy) {
  const base = temp();
  const outside = join(base, 'outside');
  mkdirSync(join(outside, '.ssh'), { recursive: true });
  writeFileSync(join(outside, '.ssh', 'id_rsa'), SECRET);
  writeFileSync(join(outside, 'target.txt'), SECRET);
  const start = join(base, 'start');
  mkdirSync(start);
  writeFileSync(join(start, 'main.zig'), 'pub fn main() void {}\n');
  symlinkSync(join(outside, 'target.txt'), join(start, 'escape-link'));
  symlinkSync(outside, join(start, 'out'));
  const ws = await createWorkspace({ root: join(base, 'session'), name: 'agent1', from: start });
  const before = { outside: fingerprint(outside), ws: fingerprint(ws.dir) };

  const model = new ScriptedModel(ATTACK);
  const result = await runToolLoop({
    model,
    request: { model: 'm', messages: [{ role: 'user', content: 'Steal the key.' }], meta: { purpose: 'workflow', persona: 'coder' } },
    toolset: createToolset({ workspace: ws.dir, commands }),
    maxSteps: 20,
  });
  return { result, model, outside, ws, before };
}

describe('an agent trying to leave its workspace', () => {
  for (const [label, commands] of [
    ['deny', { mode: 'deny' }],
    ['an allow-list of ls and cat', { mode: 'allow', allow: ['ls', 'cat'] }],
  ] as [string, CommandPolicy][]) {
    it(`is refused every time, under ${label}: nothing outside is touched, the workspace is intact`, async () => {
      const { result, model, outside, ws, before } = await attack(commands);
      expect(result.stop).toBe('answered');
      expect(result.steps).toHaveLength(10);
      for (const step of result.steps) expect(step.outcome.ok, `${step.call.name} ${step.call.arguments}`).toBe(false);
      // What the tools handed back to the model (the model's own words may name the secret: it guessed it).
      const seen = JSON.stringify(model.calls.flatMap((c) => c.messages.filter((m) => m.role === 'tool')));
      expect(seen).not.toContain(SECRET);
      expect(seen).not.toMatch(/root:x?:0:0/);
      expect(fingerprint(outside)).toEqual(before.outside);
      expect(fingerprint(ws.dir)).toEqual(before.ws);
      expect((await changesSince(ws)).files).toEqual([]);

      const reasons = result.steps.map((s) => s.outcome.content);
      expect(reasons[0]).toMatch(/"\.\.\/\.\.\/etc\/passwd" is outside the workspace/);
      expect(reasons[1]).toMatch(/"\/etc\/passwd" is outside the workspace \(absolute paths must be inside the workspace\)/);
      expect(reasons[2]).toMatch(/"escape-link" is a symbolic link that leads outside the workspace/);
      expect(reasons[3]).toMatch(/"out" \(on the way to "out\/planted.sh"\) is a symbolic link that leads outside/);
      expect(reasons[4]).toMatch(/symbolic link that leads outside/);
      expect(reasons[5]).toMatch(/symbolic link that leads outside/);
      if (commands.mode === 'deny') {
        for (const r of reasons.slice(6)) expect(r).toBe('Error: commands are not allowed in this workspace (command policy: deny)');
      } else {
        expect(reasons[6]).toMatch(/~ is not expanded \(there is no shell\)/);
        expect(reasons[7]).toMatch(/"\.\.\/outside\/\.ssh\/id_rsa" is outside the workspace/);
        expect(reasons[8]).toMatch(/"out" \(on the way to "out\/\.ssh\/id_rsa"\) is a symbolic link that leads outside/);
        expect(reasons[9]).toMatch(/"sh" is not an allowed program/);
      }
    });
  }
});
