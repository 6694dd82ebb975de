import { mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { gitIn } from '../helpers/git-repo.js';
import { bwrapMissing } from '../helpers/jail.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { isSecretFile } from '../../src/tools/secret-files.js';
import { createToolset } from '../../src/tools/toolset.js';
import { createWorkspace } from '../../src/tools/workspace.js';

const temp = tempDirPerTest('troupe-ws-secrets-');
const KEY = 'sk-live-HOSTILE-PROBE-sentinel';

// Hostile: a project as users keep one, its API key in `.env` beside the code a workflow copies into each agent's workspace.
function project(): string {
  const from = join(temp(), 'project');
  mkdirSync(join(from, 'src'), { recursive: true });
  writeFileSync(join(from, 'src', 'main.ts'), 'export const x = 1;\n');
  for (const name of ['.env', '.env.local', '.env.production', 'prod.env', '.envrc', '.npmrc', '.netrc', '.git-credentials', 'id_rsa', 'id_ed25519', 'server.pem', 'tls.key']) {
    writeFileSync(join(from, name), `OPENAI_API_KEY=${KEY}\n`);
  }
  writeFileSync(join(from, 'src', '.env'), `KEY=${KEY}\n`);
  mkdirSync(join(from, '.ssh'));
  writeFileSync(join(from, '.ssh', 'config'), `IdentityFile ${KEY}\n`);
  // Kept: templates, public keys, and a virtualenv folder named .env.
  writeFileSync(join(from, '.env.example'), 'OPENAI_API_KEY=\n');
  writeFileSync(join(from, 'config.example.env'), 'OPENAI_API_KEY=\n');
  writeFileSync(join(from, 'id_rsa.pub'), 'ssh-rsa AAAA\n');
  mkdirSync(join(from, 'venv', '.env', 'bin'), { recursive: true });
  writeFileSync(join(from, 'venv', '.env', 'bin', 'python'), '');
  // A link to the key under another name is copied as a link, to a file that is not there.
  symlinkSync('.env', join(from, 'settings.txt'));
  return from;
}

describe('a workspace copy leaves the project secrets out', () => {
  it('.env and its variants, credentials and private keys are not copied; templates and public keys are', async () => {
    const workspace = await createWorkspace({ root: join(temp(), 'session'), name: 'w', from: project() });
    expect(readdirSync(workspace.dir).sort()).toEqual(['.env.example', 'config.example.env', 'id_rsa.pub', 'settings.txt', 'src', 'venv']);
    expect(readdirSync(join(workspace.dir, 'src'))).toEqual(['main.ts']);
    expect(readdirSync(join(workspace.dir, 'venv', '.env', 'bin'))).toEqual(['python']);
  });

  it('so the file tools find no key in the workspace', async () => {
    const workspace = await createWorkspace({ root: join(temp(), 'session'), name: 'w', from: project() });
    const tools = createToolset({ workspace: workspace.dir, tools: ['read_file', 'search_files'] });
    expect((await tools.run({ name: 'read_file', arguments: JSON.stringify({ path: '.env' }) })).ok).toBe(false);
    expect((await tools.run({ name: 'read_file', arguments: JSON.stringify({ path: 'settings.txt' }) })).ok).toBe(false);
    const found = await tools.run({ name: 'search_files', arguments: JSON.stringify({ pattern: 'sk-live' }) });
    expect(found.content).not.toContain(KEY);
  });

  it.skipIf(bwrapMissing)('nor does a command', async () => {
    const workspace = await createWorkspace({ root: join(temp(), 'session'), name: 'w', from: project() });
    const tools = createToolset({ workspace: workspace.dir, tools: ['run_command'], commands: { mode: 'allow', allow: ['cat', 'grep'] } });
    const cat = await tools.run({ name: 'run_command', arguments: JSON.stringify({ command: 'cat .env' }) });
    expect(cat.content).toMatch(/^exit code 1\ncat: .env: No such file/);
    const grep = await tools.run({ name: 'run_command', arguments: JSON.stringify({ command: 'grep -r sk-live .' }) });
    expect(grep.content).not.toContain(KEY);
  });

  it('a git workspace is a clone of HEAD: an untracked (ignored) .env is not in it', async () => {
    const from = project();
    writeFileSync(join(from, '.gitignore'), '.env\n');
    const git = gitIn(from);
    git('init', '-q');
    git('add', 'src', '.gitignore');
    git('commit', '-qm', 'init');
    const workspace = await createWorkspace({ root: join(temp(), 'session'), name: 'w', from, git: true });
    expect(readdirSync(workspace.dir).sort()).toEqual(['.git', '.gitignore', 'src']);
  });
});

describe('isSecretFile', () => {
  it.each([
    ['.env', false, true],
    ['.ENV.Local', false, true],
    ['staging.env', false, true],
    ['.env.example', false, false],
    ['.env.sample', false, false],
    ['env.template.env', false, false],
    ['environment.ts', false, false],
    ['id_ecdsa', false, true],
    ['id_ecdsa.pub', false, false],
    ['.env', true, false],
    ['.ssh', true, true],
    ['.aws', true, true],
    ['keys', true, false],
  ])('%s (folder: %s) is a secret: %s', (name, folder, secret) => {
    expect(isSecretFile(name, folder)).toBe(secret);
  });
});
