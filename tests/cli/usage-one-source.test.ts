import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import React from 'react';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render } from 'ink-testing-library';
import type { ChatModel, ChatRequest, ChatResponse } from '../../src/llm/chat-model.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import { openSession } from '../../src/session/open-session.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { App } from '../../src/ui/App.js';
import { formatTokens } from '../../src/usage/format.js';
import { serveApp } from '../../src/serve/app.js';
import { SessionHost } from '../../src/serve/host.js';
import { cleanEnv, runCli, testDataDir } from '../helpers/cli.js';
import { fixedClock, REPO_ROOT, studio } from '../helpers/team.js';
import { LongSessionModel } from '../memory/long-session.js';
import { tick, until } from '../ui/wait.js';

afterEach(() => cleanup());

const TURNS = 70;
const ENV = { TROUPE_MODEL: 'test-model' };

/** The long scripted session, each call reporting usage; the test keeps its own tally of what was used. */
function meteredLongSession(tally: { calls: number; tokens: number }): ChatModel {
  const long = new LongSessionModel({ lastTurn: TURNS });
  return {
    label: 'long session model',
    async generate(request: ChatRequest): Promise<ChatResponse> {
      const response = await long.generate(request);
      const n = ++tally.calls;
      const usage = { promptTokens: 1000 + 7 * n, completionTokens: 40 + n };
      tally.tokens += usage.promptTokens + usage.completionTokens;
      return { ...response, usage };
    },
  };
}

const total = (lines: string) =>
  lines
    .match(/\btotal\s+(\d+) call\(s\)\s+(\d+) tokens/m)
    ?.slice(1)
    .map(Number);
const summary = (lines: string) =>
  lines
    .match(/^usage: ([\d,]+) call\(s\), ([\d,]+) tokens/m)
    ?.slice(1)
    .map((n) => Number(n.replace(/,/g, '')));

describe('one usage source: every view reports the meter of a resumed session', () => {
  it('run summary, UI footer, !cost in the UI, !cost piped into troupe resume, and the API agree after a resume past the recent-event window', async () => {
    // A long stored session: more events than a reopened session keeps in its recent window (500). Its rolling
    // memory is saved with it, so reopening it makes no summary call of its own.
    const tally = { calls: 0, tokens: 0 };
    const first = await openSession({
      team: studio({ maxTurns: 400 }),
      model: meteredLongSession(tally),
      store: new LowdbStore(testDataDir()),
      id: 'long',
      maxTurns: 400,
      clock: fixedClock(),
      env: ENV,
      memory: true,
    });
    first.start('A cozy lighthouse game');
    await first.settled();
    await first.stop({ reason: 'awaiting_user' });
    expect(first.getSnapshot().status).toBe('awaiting_user');
    expect(tally.calls).toBeGreaterThan(TURNS);
    const events = (await new LowdbStore(testDataDir()).read('long')).events;
    expect(events.length).toBeGreaterThan(500);
    const want = [tally.calls, tally.tokens];

    // Piped into troupe resume: !cost, then the run summary at the end.
    const resumed = await runCli(['resume', 'long'], cleanEnv(), '!cost\n');
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(total(resumed.stdout)).toEqual(want);
    expect(summary(resumed.stdout)).toEqual(want);

    // The UI on the reopened session, showing a small window of its history: the footer and !cost.
    const session = await openSession({ store: new LowdbStore(testDataDir()), resume: 'long', team: studio({ maxTurns: 400 }), model: new DemoModel(), env: ENV, memory: true, recentEvents: 40 });
    try {
      expect(session.recent().length).toBeLessThan(100);
      const ui = render(React.createElement(App, { session, history: [...session.recent()], columns: 120, rows: 40 }));
      await tick();
      const frame = () => ui.lastFrame() ?? '';
      expect(frame()).toContain(`tokens ${formatTokens(tally.tokens)} ·`);
      ui.stdin.write('!cost\r');
      await until(() => total(frame()) !== undefined, frame);
      expect(total(frame())).toEqual(want);
    } finally {
      cleanup();
      await session.stop();
    }

    // The API: the stored session's view, then !cost and the view once the server runs it.
    const host = new SessionHost({ store: new LowdbStore(testDataDir()), team: studio({ maxTurns: 400 }), teamDir: REPO_ROOT, env: ENV, maxSessions: 2, model: () => new DemoModel() });
    const app = serveApp({ host, token: null, maxBodyBytes: 4096 });
    try {
      const stored = (await (await app.request('/v1/sessions/long')).json()) as { hosted: boolean; usage: { calls: number; tokens: number } };
      expect(stored.hosted).toBe(false);
      expect([stored.usage.calls, stored.usage.tokens]).toEqual(want);
      const cost = await app.request('/v1/sessions/long/input', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: '!cost' }) });
      expect(total(((await cost.json()) as { lines: string[] }).lines.join('\n'))).toEqual(want);
      const hosted = (await (await app.request('/v1/sessions/long')).json()) as { hosted: boolean; usage: { calls: number; tokens: number; byPersona: Record<string, { calls: number }> } };
      expect(hosted.hosted).toBe(true);
      expect([hosted.usage.calls, hosted.usage.tokens]).toEqual(want);
      expect(Object.values(hosted.usage.byPersona).reduce((n, p) => n + p.calls, 0)).toBe(tally.calls);
      expect(hosted.usage.byPersona['(memory)']!.calls).toBe(tally.calls - TURNS);
    } finally {
      await host.stopAll();
    }
  }, 60_000);
});

describe('a demo session costs nothing in every view', () => {
  it('troupe sessions says so in its COST column, as the run summary does (it said "2545 tok"), and a cached listing made before it knew is made again', async () => {
    const env = cleanEnv({ TROUPE_DATA_DIR: mkdtempSync(join(tmpdir(), 'troupe-free-listing-')) });
    try {
      const ran = await runCli(['run', 'a lighthouse game', '--max-turns', '2'], env);
      expect(ran.stdout).toContain('cost free (demo model)');
      const costOf = (stdout: string) => {
        const [header, row] = stdout.trim().split('\n');
        return row!.slice(header!.indexOf('COST'));
      };
      expect(costOf((await runCli(['sessions'], env)).stdout)).toBe('free (demo model)');
      // A listing cached by a troupe that did not record it: not trusted as free or not, made again.
      const index = join(env.TROUPE_DATA_DIR!, 'sessions', 'index.json');
      const cache = JSON.parse(readFileSync(index, 'utf8')) as { sessions: Record<string, { listing: Record<string, unknown> }> };
      for (const entry of Object.values(cache.sessions)) delete entry.listing.free;
      writeFileSync(index, JSON.stringify(cache));
      expect(costOf((await runCli(['sessions'], env)).stdout)).toBe('free (demo model)');
    } finally {
      rmSync(env.TROUPE_DATA_DIR!, { recursive: true, force: true });
    }
  });
});
