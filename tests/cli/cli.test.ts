import { mkdtempSync, cpSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeOpenAIServer, completion } from '../helpers/fake-openai-server.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/team.js';

let server: FakeOpenAIServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

describe('troupe run against a local OpenAI-compatible server', () => {
  it('prints one JSON event per line, with the real SDK on the wire', async () => {
    server = await new FakeOpenAIServer([
      { body: completion('A concept.', { transition: 'HANDOFF_TO_AGENT', next_agent: 'Game Designer' }) },
      { body: completion('Approved, engineering next.', { transition: 'APPROVE_AND_HANDOFF', next_agent: 'lead_engineer', key_decisions: ['six chapters'] }) },
      { body: completion('Question for the user.', { transition: 'RESPOND_TO_USER' }) },
    ]).start();
    const env = cleanEnv({ OPENAI_BASE_URL: server.baseURL, OPENAI_API_KEY: 'sk-test-secret-123456', TROUPE_MODEL: 'local-model' });
    const result = await runCli(['run', 'a lighthouse game', '--json'], env);
    expect(result.stderr).toMatch(/^session [0-9a-f-]+ saved — continue it with: troupe resume [0-9a-f]{8}$/m);
    expect(result.stderr).toMatch(/^usage: 3 call\(s\)/m);
    expect(result.code).toBe(0);
    const events = result.stdout
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    const types = new Set(events.map((e) => e.type));
    for (const t of ['session_started', 'agent_started', 'agent_message', 'directive', 'arbitration', 'transition', 'awaiting_user', 'session_detached']) {
      expect(types.has(t), t).toBe(true);
    }
    const moves = events.filter((e) => e.type === 'transition').map((e) => [e.from, e.to]);
    expect(moves).toEqual([
      ['USER_INTERACTION.user', 'CREATIVE.creative_partner'],
      ['CREATIVE.creative_partner', 'CREATIVE.game_designer'],
      ['CREATIVE.game_designer', 'TECHNICAL.lead_engineer'],
      ['TECHNICAL.lead_engineer', 'USER_INTERACTION.user'],
    ]);
    expect(events.filter((e) => e.type === 'transition').every((e) => typeof e.reason === 'string' && e.reason.length > 0)).toBe(true);
    // Waiting for the user is not an end: the run lets go of the session, which stays resumable.
    expect(events.at(-1)).toMatchObject({ type: 'session_detached', reason: 'awaiting_user' });
    expect(types.has('session_ended')).toBe(false);
    expect(server.requests).toHaveLength(3);
    expect(server.requests[0]!.headers.authorization).toBe('Bearer sk-test-secret-123456');
    expect(server.requests[0]!.body.model).toBe('local-model');
    expect(server.requests[0]!.body.tools[0].function.name).toBe('handoff_directive');
    expect(result.stdout).not.toContain('sk-test-secret');
  });

  it('names a missing API key for a remote base URL in one line', async () => {
    const result = await runCli(['run', 'x'], cleanEnv({ OPENAI_BASE_URL: 'https://api.example.invalid/v1' }));
    expect(result.code).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([expect.stringMatching(/OPENAI_API_KEY is not set — export OPENAI_API_KEY/)]);
  });
});

describe('troupe with no API key', () => {
  it('runs the demo session to its end and says why it ended', async () => {
    const result = await runCli([]);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('demo model (offline');
    expect(result.stdout).toContain('CREATIVE › Game Designer -> CREATIVE › Creative Partner (REWORK)');
    expect(result.stdout).toContain('CREATIVE › Game Designer -> TECHNICAL › Lead Engineer (APPROVE_AND_HANDOFF)');
    expect(result.stdout).toContain('TECHNICAL › Lead Engineer -> STRATEGIC › CFO (RULE)');
    // Once, by the ◂ line: the pause that lets go of the session repeated it ("Session paused: waiting for you — ...").
    expect(result.stdout.match(/waiting for you/g)).toEqual(['waiting for you']);
    expect(result.stdout).toContain('◂ waiting for you: CEO declared the work complete');
  });

  it('runs the simple pipeline', async () => {
    const result = await runCli(['run', 'a racing game', '--mode', 'simple']);
    expect(result.code).toBe(0);
    expect(result.stdout).toContain('SIMPLE');
    expect(result.stdout).toMatch(/pipeline complete \(Ideation -> Planning -> Implementation\)/);
  });
});

describe('CLI input errors', () => {
  it('prints the usage line and exits 2 on an unknown flag', async () => {
    const result = await runCli(['run', 'x', '--turbo']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/Unknown option '--turbo'/);
    expect(result.stderr).toContain('usage: troupe');
    expect((await runCli(['run', 'x', '--mode', 'chaos'])).code).toBe(2);
    expect((await runCli(['dance'])).stderr).toMatch(/unknown command "dance"/);
    expect((await runCli(['sesions'])).stderr).toMatch(/unknown command "sesions" — did you mean troupe sessions\?/);
  });

  it('validate reports every problem with no stack trace, exit 1; a clean team gives a summary', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'troupe-cli-'));
    try {
      cpSync(join(REPO_ROOT, 'personas'), join(dir, 'personas'), { recursive: true });
      cpSync(join(REPO_ROOT, 'prompts'), join(dir, 'prompts'), { recursive: true });
      writeFileSync(join(dir, 'personas', 'cmo.json'), '{"id": "cmo"');
      rmSync(join(dir, 'prompts', 'ceo.md'));
      const bad = await runCli(['validate', '--team', dir]);
      expect(bad.code).toBe(1);
      expect(bad.stderr).toMatch(/cmo\.json:1:13: not valid JSON/);
      expect(bad.stderr).toMatch(/ceo\.json: prompt: prompt file .*ceo\.md is missing/);
      expect(bad.stderr).not.toMatch(/\n\s+at /);
      const run = await runCli(['run', 'x', '--team', dir]);
      expect(run.code).toBe(1);
      const ok = await runCli(['validate']);
      expect(ok).toMatchObject({ code: 0 });
      // validate covers the workflows too (issue 11): the shipped ones are clean.
      expect(ok.stdout).toMatch(/^ok: V7 Studio — 8 personas in 3 majors, initial CREATIVE.creative_partner\nok: \d+ workflow\(s\)\n$/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('graph prints a Mermaid state diagram', async () => {
    const result = await runCli(['graph']);
    expect(result.stdout.split('\n')[0]).toBe('stateDiagram-v2');
    expect(result.stdout).toContain('state STRATEGIC {');
    expect(result.stdout).toContain('game_designer --> lead_engineer');
    // The CEO and the Creative Partner may hand to their own majors, but never to themselves: the arbiter drops that.
    expect(result.stdout).toContain('ceo --> cfo');
    for (const line of result.stdout.split('\n')) {
      const edge = /^ {2}(\w+) --> (\w+)$/.exec(line);
      if (edge) expect(edge[1], line).not.toBe(edge[2]);
    }
  });
});
