import { describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from '../../helpers/cli.js';
import { parseEvents, reply, RoleServer } from '../../helpers/workflow-run.js';

// Hostile: a model's parsing-tool call whose arguments nest 60,000 arrays deep (120,000 characters, within what troupe reads of an answer). JSON.parse takes it, but
// JSON.stringify and any recursive walk of the parsed value overflow the stack: model output must never
// crash a session, only fail the turn or state with a line saying why.
const DEEP = `{"improvement_needed": false, "work_summary": "done", "extra": ${'['.repeat(60_000)}${']'.repeat(60_000)}}`;

describe("a parsing tool's arguments nested 60,000 levels deep", () => {
  // Found by a probe: parsedArguments() (src/workflow/run/turns.ts) JSON.parsed a tool call's arguments at any
  // depth and kept the value in the turn's record; writing that record (JSON.stringify in the store) overflowed
  // the stack and the session stopped with "Maximum call stack size exceeded" (where: store), on every resume
  // too. Arguments nested past MAX_JSON_DEPTH are now kept as `_unparsed` text.
  it('end the turn with a clear line (or are kept as text): never a stack overflow that stops the session', async () => {
    const server = await new RoleServer({ coder: [reply('The code.')], reviewer: [reply('', { name: 'review_work', rawArguments: DEEP })] }).start();
    try {
      const out = await runCli(
        ['run', '--workflow', 'coder_reviewer', '--input', 'write it', '--json'],
        cleanEnv({ OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'test', TROUPE_MODEL: 'test-model' }),
      );
      expect(out.stderr).not.toMatch(/\n\s+at |RangeError|Maximum call stack/);
      const events = parseEvents(out.stdout);
      expect(JSON.stringify(events)).not.toMatch(/Maximum call stack/);
      expect(['session_ended', 'session_detached']).toContain(events.at(-1)!.type);
      expect(events.some((e) => e.type === 'error' && e.where === 'store')).toBe(false);
    } finally {
      await server.stop();
    }
  });
});
