import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { REPO_ROOT } from '../helpers/team.js';

/** The first TypeScript block of a README section. */
function example(section: string): string {
  const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');
  const body = readme.slice(readme.indexOf(`## ${section}`));
  const match = /```ts\n([\s\S]*?)```/.exec(body);
  if (!match) throw new Error(`no ts block in ## ${section}`);
  return match[1]!;
}

describe('the README', () => {
  it("library section: the embedding example runs as written and prints the team's words", async () => {
    const code = example('Library')
      .replaceAll("from 'troupe/testing'", `from ${JSON.stringify(join(REPO_ROOT, 'src', 'testing.ts'))}`)
      .replaceAll("from 'troupe'", `from ${JSON.stringify(join(REPO_ROOT, 'src', 'index.ts'))}`);
    expect(code.split('\n').length).toBeLessThanOrEqual(20);
    const dir = mkdtempSync(join(REPO_ROOT, 'tests', 'project', '.tmp-'));
    const file = join(dir, 'example.ts');
    writeFileSync(file, code);
    const lines: string[] = [];
    const log = vi.spyOn(console, 'log').mockImplementation((...args: unknown[]) => void lines.push(args.join(' ')));
    try {
      await import(pathToFileURL(file).href);
    } finally {
      log.mockClear();
      rmSync(dir, { recursive: true, force: true });
    }
    expect(lines).toEqual(['creative_partner: Concept: a lighthouse that remembers.', 'game_designer: Loop: tend, repair, remember.', 'Game Designer asks you to respond']);
  });
});
