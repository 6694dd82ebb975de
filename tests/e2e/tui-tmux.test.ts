import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { completion, FakeOpenAIServer } from '../helpers/fake-openai-server.js';
import { REPO_ROOT } from '../helpers/team.js';
import { until } from '../ui/wait.js';

const hasTmux = spawnSync('tmux', ['-V']).status === 0;
const CLI = join(REPO_ROOT, 'dist', 'cli.js');
// A private tmux server, so the test never touches the user's sessions.
const SOCKET = `troupe-e2e-${process.pid}`;
const tmux = (...args: string[]) => execFileSync('tmux', ['-L', SOCKET, ...args], { encoding: 'utf8' });
const screen = () => tmux('capture-pane', '-p', '-t', 'tui', '-S', '-200');
const lastUser = (body: { messages: { role: string; content: string }[] }) =>
  body.messages
    .filter((m) => m.role === 'user')
    .map((m) => m.content)
    .join('\n');

describe.skipIf(!hasTmux)(`the real CLI in tmux${hasTmux ? '' : ' (skipped: tmux is not installed; .ci/run installs it)'}`, () => {
  // First call (Creative Partner) is slow so the user can hand off while it answers; later calls answer at once.
  const server = new FakeOpenAIServer((_req, index) =>
    index === 0
      ? { delayMs: 30_000, body: completion('too late', { transition: 'RESPOND_TO_USER' }) }
      : { body: completion('CEO here: I take it from the brief, as you asked.', { transition: 'RESPOND_TO_USER' }) },
  );

  // The session is stored in a private temp dir, never in the repository's .troupe/.
  let data = '';

  beforeAll(async () => {
    if (!existsSync(CLI)) throw new Error(`${CLI} is missing: run npm run build first`);
    await server.start();
    data = mkdtempSync(join(tmpdir(), 'troupe-e2e-'));
    // A person at a terminal, not a CI job: Ink draws live frames only outside CI.
    const env = `env -u TROUPE_MODEL CI=false OPENAI_BASE_URL=${server.baseURL} OPENAI_API_KEY=test TROUPE_MODEL=test-model TROUPE_DATA_DIR=${data}`;
    tmux('new-session', '-d', '-s', 'tui', '-x', '100', '-y', '32', `${env} node ${CLI}; sleep 60`);
  });

  afterAll(async () => {
    spawnSync('tmux', ['-L', SOCKET, 'kill-server']);
    await server.stop();
    rmSync(data, { recursive: true, force: true });
  });

  it('types a brief, hands off to the CEO while a persona answers, and shows STRATEGIC › CEO', async () => {
    await until(
      () => screen().includes('Type a brief for the team'),
      () => `first frame:\n${screen()}`,
      15_000,
    );
    expect(screen()).toContain(`openai-compatible ${server.baseURL}`);
    tmux('send-keys', '-t', 'tui', '-l', 'a lighthouse keeper game');
    tmux('send-keys', '-t', 'tui', 'Enter');
    await until(
      () => server.requests.length === 1 && screen().includes('Creative Partner is answering'),
      () => `answering:\n${screen()}`,
      15_000,
    );
    tmux('send-keys', '-t', 'tui', '-l', '!handoff CEO');
    tmux('send-keys', '-t', 'tui', 'Enter');
    await until(
      () => screen().includes('CEO here: I take it from the brief'),
      () => `after handoff:\n${screen()}`,
      15_000,
    );
    const shown = screen();
    expect(shown).toContain("Creative Partner's answer was cut off");
    expect(shown).toMatch(/▸ STRATEGIC › CEO · turn 1 · RESPOND_TO_USER/);
    expect(shown).toMatch(/^STRATEGIC › CEO\s+·\s+waiting for you/m);
    expect(server.requests).toHaveLength(2);
    expect(lastUser(server.requests[1]!.body)).toMatch(/user-requested/i);
    tmux('send-keys', '-t', 'tui', '-l', '!quit');
    tmux('send-keys', '-t', 'tui', 'Enter');
    await until(
      // The command as it was started: node and the script, or troupe where that on the PATH is this CLI.
      () => /continue it with: (troupe|node \S*cli\.js) resume/.test(screen()),
      () => `after quit:\n${screen()}`,
      15_000,
    );
    expect(readdirSync(join(data, 'sessions')).filter((f) => f.endsWith('.json') && f !== 'index.json')).toHaveLength(1);
    expect(readdirSync(join(data, 'sessions')).filter((f) => f.endsWith('.jsonl'))).toHaveLength(1);
  });
});
