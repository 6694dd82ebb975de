import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'shell-quote';
import { describe, expect, it } from 'vitest';
import { parseCli } from '../../src/cli/args.js';
import { COMMAND_SPECS, optionsOf } from '../../src/cli/command-specs.js';
import { OPTIONS } from '../../src/cli/options.js';
import { runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/team.js';

// Issue 22, item 4: every `troupe <cmd> --help` printed the same global usage, and `troupe help [cmd]` was
// an unknown command. Each command has its own page: synopsis, options, examples.

const named = COMMAND_SPECS.filter((c) => c.name !== '');

/** The troupe part of an example command line (after a pipe, before a redirection), as argv. */
function argvOf(example: string): string[] {
  const words = parse(example).map((w) => (typeof w === 'string' ? w : 'op' in w ? `\u0000${w.op}` : ''));
  const start = words.lastIndexOf('troupe');
  const rest = words.slice(start + 1);
  const end = rest.findIndex((w) => w.startsWith('\u0000'));
  return end < 0 ? rest : rest.slice(0, end);
}

describe('help', () => {
  it("troupe --help lists every command and says where each one's help is", async () => {
    const { code, stdout } = await runCli(['--help']);
    expect(code).toBe(0);
    for (const c of named) expect(stdout).toMatch(new RegExp(`^  ${c.name} +${c.summary.replace(/[()[\]|.*+?^$]/g, '\\$&')}$`, 'm'));
    expect(stdout).toContain('troupe <command> --help, or troupe help <command>');
    expect((await runCli(['help'])).stdout).toBe(stdout);
  });

  for (const c of named) {
    it(`troupe ${c.name} --help is its own page, the same as troupe help ${c.name}`, async () => {
      const page = await runCli([c.name, '--help']);
      expect(page.code).toBe(0);
      const lines = page.stdout.split('\n');
      expect(lines[0]).toBe(`troupe ${c.name} — ${c.summary}`);
      expect(lines).toEqual(expect.arrayContaining(['usage:', 'options:', 'examples:', ...c.synopsis.map((s) => `  ${s}`), ...c.examples.map((e) => `  ${e}`)]));
      // Its options, and only its own.
      const section = lines.slice(lines.indexOf('options:') + 1, lines.indexOf('examples:') - 1);
      expect(section.map((l) => /--([a-z-]+)/.exec(l)![1])).toEqual(optionsOf(c));
      for (const name of optionsOf(c)) expect(Object.keys(OPTIONS)).toContain(name);
      expect((await runCli(['help', c.name])).stdout).toBe(page.stdout);
    });
  }

  it('troupe help <unknown> is a usage error with a suggestion', async () => {
    const { code, stderr } = await runCli(['help', 'valdate']);
    expect(code).toBe(2);
    expect(stderr).toBe('troupe: unknown command "valdate" — did you mean troupe validate?\nusage: troupe [command] [options] (troupe --help lists the commands)\n');
  });

  it('every example in the help pages parses as written', () => {
    for (const c of COMMAND_SPECS) {
      for (const example of c.examples) {
        const args = parseCli(argvOf(example));
        expect(args.command, example).toBe(c.name);
      }
    }
  });
});

describe('each command takes its own options', () => {
  it("an option another command takes is refused, with this command's usage", async () => {
    const { code, stderr } = await runCli(['show', '--port', '3']);
    expect(code).toBe(2);
    expect(stderr).toBe('troupe: show does not take --port\nusage: troupe show [id]\n(troupe show --help shows its options and examples)\n');
  });

  it('extra arguments are refused', async () => {
    const { code, stderr } = await runCli(['sessions', 'all']);
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toBe('troupe: sessions takes no arguments, got "all"');
  });

  it('--help wins over anything else on the line', async () => {
    const { code, stdout } = await runCli(['show', '--port', '3', '--help']);
    expect(code).toBe(0);
    expect(stdout.split('\n')[0]).toMatch(/^troupe show — /);
  });
});

describe('troupe on the PATH', () => {
  it('package.json links the built CLI as the troupe bin, and the entry is a node script', () => {
    const pkg = JSON.parse(readFileSync(join(REPO_ROOT, 'package.json'), 'utf8')) as { bin: Record<string, string>; scripts: Record<string, string> };
    expect(pkg.bin).toEqual({ troupe: 'dist/cli.js' });
    expect(pkg.scripts.start).toBe('node dist/cli.js');
    // dist/cli.js is the launcher (src/launch/cli-launcher.ts), which runs the CLI's bundle.
    expect(readFileSync(join(REPO_ROOT, 'src', 'launch', 'cli-launcher.ts'), 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
    expect(readFileSync(join(REPO_ROOT, 'dist', 'cli.js'), 'utf8').split('\n')[0]).toBe('#!/usr/bin/env node');
  });
});

describe("an option's value on the command line", () => {
  it('a negative number after an option is its value, judged by the option\'s own check (node called it "ambiguous")', async () => {
    const { code, stderr } = await runCli(['fork', 'abc', '--at', '-1']);
    expect(code).toBe(2);
    expect(stderr.split('\n')[0]).toBe('troupe: --at must be a step number (troupe fork <id> lists them), got "-1"');
    expect((await runCli(['run', '--max-turns', '-3', 'x'])).stderr.split('\n')[0]).toBe('troupe: --max-turns must be a whole number from 1 to 1000000, got "-3"');
  });

  it('a missing value, one that starts with "-", a value for a switch: one line naming the option and the fix', async () => {
    expect((await runCli(['fork', 'abc', '--at'])).stderr.split('\n')[0]).toBe('troupe: --at needs a value');
    expect((await runCli(['run', '--team', '-x', 'y'])).stderr.split('\n')[0]).toBe('troupe: --team needs a value; one that starts with "-" is written --team=VALUE');
    expect((await runCli(['run', '--demo=1', 'x'])).stderr.split('\n')[0]).toBe('troupe: --demo takes no value');
    // After --, a line is positionals as written.
    expect(parseCli(['run', '--', '--at', '-1']).positionals).toEqual(['--at', '-1']);
  });
});
