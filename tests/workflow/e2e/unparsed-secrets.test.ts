import { readdirSync, readFileSync, statSync } from 'node:fs';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from '../../helpers/cli.js';
import { reply, RoleServer } from '../../helpers/workflow-run.js';

// Probe (round 10) of secrets in the new paths: a tool call's arguments kept as `_unparsed` text (nested too deep
// to parse, or not JSON) hold whatever the model wrote, the key included when it echoes one. Kept as text, they
// are still a string value of the record, redacted like any other, in the journal, the document and `--json`.

const KEY = 'correcthorsebatterystaple-0123';

/** Every file under `dir`, with its text. */
function filesUnder(dir: string): [string, string][] {
  const out: [string, string][] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...filesUnder(path));
    else out.push([path, readFileSync(path, 'latin1')]);
  }
  return out;
}

describe('a key in tool-call arguments kept as text', () => {
  for (const [kind, args] of [
    ['nested past the depth limit', `{"improvement_needed": false, "work_summary": "key ${KEY}", "extra": ${'['.repeat(200)}${']'.repeat(200)}}`],
    ['not JSON', `{"improvement_needed": false, "work_summary": "key ${KEY}" oops`],
  ] as const) {
    it(`${kind}: reaches neither the session's files nor the --json stream`, async () => {
      const server = await new RoleServer({ coder: [reply('The code.')], reviewer: [reply('', { name: 'review_work', rawArguments: args })] }).start();
      const dataDir = mkdtempSync(join(tmpdir(), 'troupe-unparsed-'));
      try {
        const out = await runCli(
          ['run', '--workflow', 'coder_reviewer', '--input', 'write it', '--json'],
          cleanEnv({ OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: KEY, TROUPE_MODEL: 'test-model', TROUPE_DATA_DIR: dataDir }),
        );
        expect(out.stdout).not.toContain('correcthorse');
        const files = filesUnder(dataDir);
        // The arguments were kept as text in the session's journal: the probe is real.
        expect(files.some(([, text]) => text.includes('_unparsed'))).toBe(true);
        for (const [path, text] of files) expect(text.includes('correcthorse'), path).toBe(false);
      } finally {
        await server.stop();
      }
    });
  }
});
