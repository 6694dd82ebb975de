import { execFileSync } from 'node:child_process';
import { readFileSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { RecordingModel } from '../../src/llm/recording.js';
import { ScriptedModel } from '../../src/llm/scripted-model.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';

// probe14: `--record FILE` wrote the recording with writeFileSync, through whatever FILE was: a link planted where the
// README's example names its file (`session.jsonl` in a cloned repository, leading to ~/.bashrc or authorized_keys)
// was followed and its target cut to the recording's first line; a FIFO blocked the run; and the recording, which
// holds the whole conversation, was readable by every user (0644) while session files are 0600.
const temp = tempDirPerTest('troupe-record-file-');

describe('a recording is written only to a regular file of its own', () => {
  it('a link at its name is refused in one line, and what it leads to is untouched', async () => {
    const dir = temp();
    const victim = join(dir, 'authorized_keys');
    writeFileSync(victim, 'ssh-ed25519 AAAA... me@host\n');
    symlinkSync(victim, join(dir, 'session.jsonl'));
    const run = await runCli(['run', 'a tide game', '--demo', '--record', 'session.jsonl'], cleanEnv({ TROUPE_DATA_DIR: join(dir, 'data') }), '', { cwd: dir });
    expect(run.code).toBe(1);
    expect(run.stderr).toBe(`troupe: cannot record to ${join(dir, 'session.jsonl')}: it is a symbolic link (a recording is never written through one) — remove it or name another file\n`);
    expect(readFileSync(victim, 'utf8')).toBe('ssh-ed25519 AAAA... me@host\n');
  });

  it('a FIFO is refused at once, not waited on', () => {
    const fifo = join(temp(), 'rec');
    execFileSync('mkfifo', [fifo]);
    expect(() => new RecordingModel(new ScriptedModel([]), fifo)).toThrow(`cannot record to ${fifo}: it is not a regular file — name a file`);
  });

  it('is readable by this user only, and replaced whole when it exists', () => {
    const file = join(temp(), 'rec.jsonl');
    writeFileSync(file, 'old old old old old old old old old old old old old old\n', { mode: 0o644 });
    new RecordingModel(new ScriptedModel([]), file, () => new Date(0));
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(readFileSync(file, 'utf8')).toMatch(/^\{"type":"recording","version":1,"label":"scripted model","created":"1970-01-01T00:00:00.000Z"\}\n$/);
  });
});
