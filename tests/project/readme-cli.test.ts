import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'shell-quote';
import { describe, expect, it } from 'vitest';
import { parseCli } from '../../src/cli/args.js';
import { COMMAND_SPECS, commandSpec, optionsOf } from '../../src/cli/command-specs.js';
import { REPO_ROOT } from '../helpers/team.js';

// Issue 22, item 7: every command and variable the README documents is checked — commands and their
// options against the CLI's own specs (what the parser accepts), variables against the source that
// reads them and a test that sets them.

const README = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8');

/** Every file under a directory (recursively) whose name ends with one of the extensions. */
function files(dir: string, ext: RegExp): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (name === 'node_modules' || name.startsWith('.')) return [];
    // lstat: the hostile fixtures hold links that lead out of the tree.
    const kind = lstatSync(path);
    return kind.isDirectory() ? files(path, ext) : kind.isFile() && ext.test(name) ? [path] : [];
  });
}

/** Command lines of the README's sh blocks and inline code that run troupe: the words after `troupe`, up to a pipe, redirection or comment. */
function troupeLines(): { line: string; words: string[]; synopsis: boolean }[] {
  const blocks = [...README.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1]!.split('\n'));
  const inline = [...README.matchAll(/`(troupe(?: [^`]*)?)`/g)].map((m) => m[1]!);
  const out: { line: string; words: string[]; synopsis: boolean }[] = [];
  for (const [n, raw] of [...blocks, ...inline].entries()) {
    const line = raw.replace(/\s+#\s.*$/, '').trim();
    if (!/(^|[\s|])troupe(\s|$)/.test(line) || /^(npm|npx) /.test(line)) continue;
    const tokens = parse(line.replace(/\$\([^)]*\)/g, 'X')).map((t) => (typeof t === 'string' ? t : '\u0000'));
    const words = tokens.slice(tokens.indexOf('troupe') + 1);
    const end = words.indexOf('\u0000');
    // Prose mentions a command or an option by name (`troupe sessions --restate-url`): only the lines of sh blocks are whole.
    out.push({ line, words: end < 0 ? words : words.slice(0, end), synopsis: n >= blocks.length || /\[|\]|<\w+>|…/.test(line) });
  }
  return out;
}

describe('the README documents the CLI as it is', () => {
  const lines = troupeLines();

  it('finds the command lines (a sanity check of the extraction)', () => {
    expect(lines.length).toBeGreaterThan(40);
    expect(new Set(lines.map((l) => l.words[0] ?? ''))).toEqual(expect.objectContaining({}));
    for (const c of COMMAND_SPECS)
      if (c.name && c.name !== 'help')
        expect(
          lines.some((l) => l.words[0] === c.name),
          c.name,
        ).toBe(true);
  });

  it('every troupe command it shows exists, and every option it gives it is one that command takes', () => {
    const wrong: string[] = [];
    for (const { line, words } of lines) {
      const command = words[0] && commandSpec(words[0]) ? words[0] : '';
      const spec = commandSpec(command)!;
      if (words[0] && !commandSpec(words[0]) && !words[0].startsWith('-') && !/^["'<…]/.test(words[0])) wrong.push(`${line}: no command "${words[0]}"`);
      for (const word of words) {
        for (const flag of word.matchAll(/(?:^|[[|])--([a-z][a-z-]*)/g))
          if (!optionsOf(spec).includes(flag[1] as never)) wrong.push(`${line}: troupe ${command || '(no command)'} does not take --${flag[1]}`);
      }
    }
    expect(wrong).toEqual([]);
  });

  it('every complete command line (no placeholders) parses as written', () => {
    const failing: string[] = [];
    for (const { line, words, synopsis } of lines) {
      if (synopsis) continue;
      try {
        parseCli(words);
      } catch (error) {
        failing.push(`${line}: ${(error as Error).message}`);
      }
    }
    expect(failing).toEqual([]);
  });

  it('every command and every option of each command is documented', () => {
    for (const c of COMMAND_SPECS) {
      if (c.name) expect(README, c.name).toMatch(new RegExp(`troupe ${c.name}\\b`));
      for (const option of optionsOf(c)) expect(README, `--${option}`).toContain(`--${option}`);
    }
  });
});

describe('the README documents the variables as they are', () => {
  const config = README.slice(README.indexOf('## Configuration'), README.indexOf('### Teams'));
  const table = [...config.matchAll(/^\| `([A-Z_]+)`(?:, `([A-Z_]+)`)?(?:, `([A-Z_]+)`)?/gm)].flatMap((m) => m.slice(1).filter(Boolean) as string[]);
  const source = files(join(REPO_ROOT, 'src'), /\.tsx?$/)
    .map((f) => readFileSync(f, 'utf8'))
    .join('\n');
  const tests = files(join(REPO_ROOT, 'tests'), /\.tsx?$/).filter((f) => !f.endsWith('readme-cli.test.ts'));

  it('the configuration table lists the variables', () => {
    expect(table).toEqual(expect.arrayContaining(['OPENAI_API_KEY', 'OPENAI_BASE_URL', 'TROUPE_MODEL', 'TROUPE_DATA_DIR', 'TROUPE_DEBUG']));
  });

  it('every variable in the table is read by the source and set by a test', () => {
    const untested: string[] = [];
    for (const name of table) {
      expect(source, name).toMatch(new RegExp(`\\b${name}\\b|TROUPE_MODEL_\\$\\{`));
      const by = tests.filter((f) => new RegExp(`\\b${name}\\b`).test(readFileSync(f, 'utf8')));
      if (by.length === 0) untested.push(name);
    }
    expect(untested).toEqual([]);
  });

  it('every variable the source reads is documented', () => {
    const read = new Set([...source.matchAll(/\b((?:TROUPE|OPENAI)_[A-Z][A-Z_]*[A-Z])\b/g)].map((m) => m[1]!));
    expect([...read].filter((name) => !README.includes(name)).map((name) => `${name} (read in src, not in README.md)`)).toEqual([]);
  });
});
