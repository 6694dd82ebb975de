/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { cleanEnv } from '../helpers/cli.js';
import { ACTIVE, ALL_HOSTILE } from '../helpers/hostile-text.js';
import { REPO_ROOT } from '../helpers/team.js';

// Issue 25: the console as a person uses it, in Debian's Chromium driven by playwright-core.
const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
const SHOTS = join(REPO_ROOT, 'dist', 'screenshots');
const AXE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
const data = mkdtempSync(join(tmpdir(), 'troupe-console-'));
let server: ChildProcess | null = null;
let browser: Browser | null = null;
let context: BrowserContext | null = null;
let page: Page;
let url = '';
let port = 0;
const ids: { team?: string } = {};

/** Starts `troupe serve` (no token: the loopback default) on a port (0: any), resolving with its URL. */
function serve(on: number): Promise<string> {
  server = spawn(process.execPath, [join(REPO_ROOT, 'dist', 'cli.js'), 'serve', '--port', String(on)], {
    env: cleanEnv({ TROUPE_DATA_DIR: data, TROUPE_DEMO_PACE_MS: '12' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new Promise<string>((resolve, reject) => {
    let out = '';
    server!.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) resolve(out.split('\n')[0]!);
    });
    server!.once('exit', (code) => reject(new Error(`serve exited ${code}`)));
  });
}

async function stop(): Promise<void> {
  const s = server;
  if (!s || s.exitCode !== null) return;
  s.kill('SIGTERM');
  await new Promise((r) => s.once('exit', r));
}

/** The serious and critical axe-core violations of the page as it is. */
async function axeProblems(p: Page): Promise<string[]> {
  await p.evaluate(AXE);
  const result = await p.evaluate(async () =>
    (window as unknown as { axe: { run: (o: unknown) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }> } }).axe.run({ resultTypes: ['violations'] }),
  );
  return result.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map(
      (v) =>
        `${v.impact} ${v.id}: ${v.nodes
          .map((n) => n.target.join(' '))
          .slice(0, 3)
          .join(', ')}`,
    );
}

const api = async <T>(path: string, init: RequestInit = {}): Promise<T> => (await fetch(`${url}${path.slice(1)}`, init)).json() as Promise<T>;
const text = (selector: string) => page.locator(selector).textContent();

describe.skipIf(!hasChromium)(`the console in a real browser${hasChromium ? '' : ' (skipped: chromium is not installed; .ci/run installs it)'}`, () => {
  beforeAll(async () => {
    mkdirSync(SHOTS, { recursive: true });
    url = await serve(0);
    port = Number(new URL(url).port);
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    // The console's CSP allows its own script only: axe-core goes in past it, in the test's context alone.
    context = await browser.newContext({ viewport: { width: 1280, height: 800 }, bypassCSP: true });
    page = await context.newPage();
    page.on('pageerror', (e) => {
      throw e;
    });
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    await stop();
    rmSync(data, { recursive: true, force: true });
  });

  it('a team session: the graph lit, words streamed, a handoff to a persona from the roster, an approval; no serious axe violation', async () => {
    await page.goto(url);
    expect(await text('h1')).toContain('troupe');
    // On loopback without a token the page asks for none.
    expect(await page.locator('#token').count()).toBe(0);
    await page.fill('#brief', 'A lighthouse keeper game');
    // At every change of the page the open session's line in the list says in words what its badge's colour says (it said "waiting: complete" in green, running).
    await page.evaluate(() => {
      const words: Record<string, RegExp> = { running: /^running$/, awaiting_user: /^waiting: /, ended: /^ended: / };
      const seen = { wrong: [] as string[], looked: 0 };
      new MutationObserver(() => {
        const badge = document.querySelector('.session[aria-current="true"] .badge');
        if (!badge) return;
        seen.looked++;
        const status = [...badge.classList].find((c) => c !== 'badge') ?? '';
        const said = `${status}: ${badge.textContent ?? ''}`;
        if (words[status] && !words[status].test(badge.textContent ?? '') && seen.wrong.at(-1) !== said) seen.wrong.push(said);
      }).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true, attributeFilter: ['class'] });
      (window as unknown as { listWords: typeof seen }).listWords = seen;
    });
    await page.getByRole('button', { name: 'Start' }).click();
    await page.waitForSelector('.graph .node.active', { timeout: 20_000 });
    await page.waitForFunction(() => (document.querySelector('.live-turn .text')?.textContent ?? '').length > 15, undefined, { timeout: 20_000 });
    await page.waitForSelector('.state-panel .badge.awaiting_user', { timeout: 30_000 });
    ids.team = decodeURIComponent(new URL(page.url()).hash.slice(1));
    // Names, not ids: the transcript and the state tree speak as the terminal does.
    expect(await text('.log')).toContain('USER_INTERACTION › You -> CREATIVE › Creative Partner (SYSTEM) — brief received');
    expect(await page.locator('.arbiter tr.winner').count()).toBeGreaterThan(0);
    await page.selectOption('#handoff', 'ceo');
    await page.getByRole('button', { name: 'Hand off' }).click();
    await page.waitForFunction(() => /-> STRATEGIC › CEO \(USER\)/.test(document.querySelector('.log')?.textContent ?? ''), undefined, { timeout: 20_000 });
    await page.waitForSelector('.graph .node.current[data-node="STRATEGIC.ceo"], .graph .node.active[data-node="STRATEGIC.ceo"]', { timeout: 20_000 });
    await page.waitForSelector('.state-panel .badge.awaiting_user', { timeout: 30_000 });
    await page.getByRole('button', { name: 'Approve' }).click();
    await page.waitForFunction(() => /you approved|session ended/.test(document.querySelector('.log')?.textContent ?? ''), undefined, { timeout: 20_000 });
    expect(Number(await page.locator('.usage tfoot td').first().textContent())).toBeGreaterThan(0);
    // The state panel follows the stream: a persona answering live is a running session, not one waiting for you.
    await page.waitForFunction(
      () => {
        const status = document.querySelector('.state-panel .badge')?.className ?? '';
        const listed = document.querySelector('.session[aria-current="true"] .badge')?.className ?? '';
        const streaming = document.querySelector('.live-turn') !== null;
        return (streaming ? /\brunning\b/.test(status) : /\b(awaiting_user|ended|idle)\b/.test(status)) && listed === status;
      },
      undefined,
      { timeout: 20_000 },
    );
    // A live turn two lines high makes the transcript shorter: it still shows its last line.
    await page.waitForFunction(() => (document.querySelector('.live')?.clientHeight ?? 0) > 50, undefined, { timeout: 20_000 });
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
    expect(
      await page.evaluate(() => {
        const log = document.querySelector('.log')!;
        return log.scrollHeight - log.scrollTop - log.clientHeight;
      }),
    ).toBeLessThan(2);
    const listWords = await page.evaluate(() => (window as unknown as { listWords: { wrong: string[]; looked: number } }).listWords);
    expect(listWords.looked).toBeGreaterThan(0);
    expect(listWords.wrong, 'the list badge: its class, then its words').toEqual([]);
    await page.screenshot({ path: join(SHOTS, 'console-team-1280x800.png') });
    expect(await axeProblems(page)).toEqual([]);
  }, 120_000);

  it('hostile text in a brief (escape sequences, control characters, bidi overrides, HTML, a 30,000-letter word) is shown as the terminal shows it, inert and wrapped', async () => {
    const word = 'W'.repeat(30_000);
    const brief = `${ALL_HOSTILE} <script>window.pwned=1</script><img src=x onerror="window.pwned=2"> ${word}`;
    const made = await api<{ id: string }>('/v1/sessions', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ brief }) });
    await page.goto(`${url}#${made.id}`);
    await page.waitForSelector('.state-panel .badge.awaiting_user', { timeout: 60_000 });
    // The demo's CEO quotes the brief's start in its turn: model text too.
    await api(`/v1/sessions/${made.id}/input`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ text: '!handoff ceo' }) });
    await page.waitForFunction(() => [...document.querySelectorAll('.entry.turn .text')].some((t) => (t.textContent ?? '').includes('copy this')), undefined, { timeout: 60_000 });
    const shown = await page.evaluate(() => ({
      text: document.body.textContent ?? '',
      pwned: (window as unknown as { pwned?: number }).pwned ?? 0,
      injected: document.querySelectorAll('.center img, .center script, .left img').length,
      wide: document.documentElement.scrollWidth - document.documentElement.clientWidth,
      // The brief over the graph, and the transcript (the brief in its header, quoted in a turn): wrapped, not scrolled sideways.
      sideways: ['.center .brief', '.log'].map((selector) => {
        const box = document.querySelector(selector)!;
        return box.scrollWidth - box.clientWidth;
      }),
    }));
    expect(shown.text).toContain('user \\u202eexe.txt');
    expect(shown.text).toContain('<script>window.pwned=1</script>');
    expect([...shown.text].filter((c) => ACTIVE.test(c)).map((c) => c.charCodeAt(0).toString(16))).toEqual([]);
    expect(shown.pwned).toBe(0);
    expect(shown.injected).toBe(0);
    expect(shown.wide).toBeLessThanOrEqual(0);
    expect(shown.sideways).toEqual([0, 0]);
  }, 90_000);

  it("opening a long session replays its stored events in a few renders, not one each (6,000 events took a minute of the page's CPU)", async () => {
    // A server of its own, its demo unpaced: a long session made in seconds; then started again, so the session is read from the store.
    let quick: ChildProcess | null = null;
    const start = () => {
      const child = spawn(process.execPath, [join(REPO_ROOT, 'dist', 'cli.js'), 'serve', '--port', '0'], {
        env: cleanEnv({ TROUPE_DATA_DIR: join(data, 'quick'), TROUPE_DEMO_PACE_MS: '0' }),
        stdio: ['ignore', 'pipe', 'ignore'],
      });
      quick = child;
      return new Promise<string>((resolve) => {
        let out = '';
        child.stdout!.on('data', (d: Buffer) => {
          out += d.toString();
          if (out.includes('\n')) resolve(out.split('\n')[0]!);
        });
      });
    };
    const halt = async () => {
      const child = quick;
      if (!child || child.exitCode !== null) return;
      child.kill('SIGTERM');
      await new Promise((r) => child.once('exit', r));
    };
    try {
      let base = await start();
      const call = async <T>(path: string, body?: unknown): Promise<T> =>
        (await fetch(`${base}v1/${path}`, body === undefined ? {} : { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })).json() as Promise<T>;
      const made = await call<{ id: string }>('sessions', { brief: 'A long session' });
      const settled = async () => {
        for (;;) {
          const v = await call<{ status: string; lastEventSeq: number }>(`sessions/${made.id}`);
          if (v.status !== 'running') return v;
          await new Promise((r) => setTimeout(r, 20));
        }
      };
      for (let i = 0; i < 200; i++) {
        await settled();
        await call(`sessions/${made.id}/input`, { text: i % 2 === 0 ? '!rework more detail please' : '!continue' });
      }
      expect((await settled()).lastEventSeq).toBeGreaterThan(2_500);
      await halt();
      base = await start();
      const tab = await context!.newPage();
      // The tasks the stream's events arrive in, counted as the console's batcher sees them (a task's events, then a
      // timer): how the bytes arrive depends on the machine's speed, so the renders are judged against these, not a ratio.
      await tab.addInitScript(() => {
        const seen = { events: 0, tasks: 0, open: false };
        const add = EventSource.prototype.addEventListener;
        EventSource.prototype.addEventListener = function (this: EventSource, type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions) {
          const counted = (e: Event) => {
            seen.events++;
            if (!seen.open) {
              seen.open = true;
              seen.tasks++;
              setTimeout(() => {
                seen.open = false;
              }, 0);
            }
            return typeof listener === 'function' ? listener.call(this, e) : listener.handleEvent(e);
          };
          add.call(this, type, counted, options);
        } as typeof EventSource.prototype.addEventListener;
        (window as unknown as { arrivals: typeof seen }).arrivals = seen;
      });
      await tab.goto(base);
      await tab.waitForSelector('.empty');
      // Every change of the transcript is recorded: how many entries it held at each.
      await tab.evaluate(() => {
        const steps: number[] = [];
        new MutationObserver(() => {
          const n = document.querySelectorAll('.log .entry').length;
          if (steps.at(-1) !== n) steps.push(n);
        }).observe(document.body, { subtree: true, childList: true });
        (window as unknown as { replaySteps: number[] }).replaySteps = steps;
      });
      await tab.goto(`${base}#${made.id}`);
      // The session's 100th !continue, from you, is near its end.
      await tab.waitForFunction(() => [...document.querySelectorAll('.log .entry.you')].filter((e) => /!continue/.test(e.textContent ?? '')).length >= 100, undefined, { timeout: 60_000 });
      const steps = await tab.evaluate(() => (window as unknown as { replaySteps: number[] }).replaySteps.filter((n) => n > 0));
      const arrivals = await tab.evaluate(() => (window as unknown as { arrivals: { events: number; tasks: number } }).arrivals);
      const entries = steps.at(-1) ?? 0;
      expect(entries).toBeGreaterThan(1_000);
      // One render at most for each task the events arrived in (one render each was 6,000 for 6,000 events); the
      // stored events come joined, so they arrive in far fewer tasks than events, however fast the machine.
      expect(steps.length, `entries at each change: ${steps.slice(0, 40).join(' ')}; ${arrivals.events} events in ${arrivals.tasks} tasks`).toBeLessThanOrEqual(arrivals.tasks);
      expect(arrivals.tasks, `${arrivals.events} events in ${arrivals.tasks} tasks`).toBeLessThan(arrivals.events);
      await tab.close();
    } finally {
      await halt();
    }
  }, 120_000);

  it('a workflow fan-out: branches streaming at once and lit in the graph; the deliverables with workspaces, files and diffs', async () => {
    await page.selectOption('#what', 'implement_review_debate');
    await page.fill('#brief', 'Write a function that adds two numbers');
    // Every change of the page is looked at, not a poll's samples: on a loaded machine a poll can miss the moment two turns stream at once.
    // A branch whose turn streams is lit with it (the graph follows the stream, not only the state read every 250 ms): both show at the same change.
    await page.evaluate(() => {
      const seen = { both: 0, trail: [] as string[] };
      const look = () => {
        const turns = document.querySelectorAll('.live-turn[data-branch^="impl_"]').length;
        const lit = document.querySelectorAll('.graph .node.branch.active').length;
        seen.both = Math.max(seen.both, Math.min(turns, lit));
        const at = `${turns}/${lit}`;
        if (seen.trail.at(-1) !== at) seen.trail.push(at);
      };
      new MutationObserver(look).observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ['class'] });
      (window as unknown as { seenBranches: typeof seen }).seenBranches = seen;
    });
    await page.getByRole('button', { name: 'Start' }).click();
    await page.waitForSelector('.state-panel .badge.ended', { timeout: 60_000 });
    const seen = await page.evaluate(() => (window as unknown as { seenBranches: { both: number; trail: string[] } }).seenBranches);
    expect(seen.both, `streaming turns/lit branches, at each change: ${seen.trail.join(' ')}`).toBeGreaterThanOrEqual(2);
    expect(await text('.log')).toMatch(/⚖ Reviewer [AB] \(round 1\)/);
    // The Cost tab names the workflow's agents as the transcript does (it showed their ids: implementer_a).
    await page.getByRole('tab', { name: 'Cost', exact: true }).click();
    const payers = await page.locator('.usage tbody th').allTextContents();
    expect(payers).toEqual(expect.arrayContaining(['Implementer A', 'Reviewer A']));
    expect(payers.filter((who) => /_/.test(who))).toEqual([]);
    // The demo's calls cost nothing, as the terminal says (it said "no price").
    expect(await page.locator('.usage tfoot td').last().textContent()).toBe('free (demo model)');
    await page.getByRole('tab', { name: 'Deliverables', exact: true }).click();
    await page.waitForSelector('.diff .add', { timeout: 20_000 });
    const deliverables = await text('.deliverables');
    expect(deliverables).toContain('impl_a');
    expect(deliverables).toMatch(/\/runs\/[0-9a-f-]+\/workspaces\/impl_a/);
    expect(deliverables).toContain('"approved"');
    await page.screenshot({ path: join(SHOTS, 'console-workflow-1280x800.png') });
    expect(await axeProblems(page)).toEqual([]);
  }, 120_000);

  it('time travel: look at a step, fork from it with other input; the console moves to the fork and the original is unchanged', async () => {
    await page.goto(`${url}#${ids.team}`);
    await page.waitForSelector('.state-panel');
    const before = (await api<{ lastEventSeq: number }>(`/v1/sessions/${ids.team}`)).lastEventSeq;
    await page.getByRole('tab', { name: 'Timeline' }).click();
    await page.locator('.step', { hasText: 'Game Designer answered' }).first().click();
    await page.waitForSelector('.step-detail');
    expect(await text('.time-travel')).toContain('as it was after step');
    await page.fill('#fork-then', 'Make it a lighthouse on Mars');
    await page.locator('.step-detail button', { hasText: 'Fork from step' }).click();
    await page.waitForFunction(() => (document.querySelector('.session-title')?.textContent ?? '').includes('fork of'), undefined, { timeout: 20_000 });
    await page.waitForFunction(() => (document.querySelector('.log')?.textContent ?? '').includes('Make it a lighthouse on Mars'), undefined, { timeout: 20_000 });
    expect((await api<{ lastEventSeq: number }>(`/v1/sessions/${ids.team}`)).lastEventSeq).toBe(before);
  }, 60_000);

  it('every control is reachable with the keyboard', async () => {
    // On a quiet page (the fork waits for the user): a live turn's panel comes and goes while a persona answers.
    await page.waitForFunction(() => document.querySelector('.live') === null && /\b(awaiting_user|ended)\b/.test(document.querySelector('.state-panel .badge')?.className ?? ''), undefined, {
      timeout: 60_000,
    });
    const wanted = await page.evaluate(() => {
      const all = [...document.querySelectorAll<HTMLElement>('button, input, select, textarea, summary, [tabindex="0"]')];
      return all.filter((el) => !(el as HTMLButtonElement).disabled && el.offsetParent !== null).map((el, i) => (el.dataset.k = String(i)));
    });
    await page.locator('body').focus();
    const reached = new Set<string>();
    for (let i = 0; i < wanted.length + 20; i++) {
      await page.keyboard.press('Tab');
      const k = await page.evaluate(() => (document.activeElement as HTMLElement | null)?.dataset.k ?? null);
      if (k !== null) reached.add(k);
    }
    const missed = await page.evaluate(
      (keys) => keys.map((k) => document.querySelector<HTMLElement>(`[data-k="${k}"]`)).map((el) => el?.outerHTML.slice(0, 80)),
      wanted.filter((k) => !reached.has(k)),
    );
    expect(missed).toEqual([]);
    expect(wanted.length).toBeGreaterThan(15);
  }, 60_000);

  it('a page of another origin cannot start a session (a no-cors text/plain POST)', async () => {
    const other: Server = createServer((_q, r) => r.end('<!doctype html><title>other</title>'));
    await new Promise<void>((r) => other.listen(0, '127.0.0.1', () => r()));
    try {
      const evil = await context!.newPage();
      await evil.goto(`http://localhost:${(other.address() as { port: number }).port}/`);
      const before = (await api<{ sessions: unknown[] }>('/v1/sessions')).sessions.length;
      await evil.evaluate(async (target) => {
        await fetch(`${target}v1/sessions`, { method: 'POST', mode: 'no-cors', headers: { 'content-type': 'text/plain' }, body: '{"brief":"pwned"}' }).catch(() => undefined);
      }, url);
      expect((await api<{ sessions: unknown[] }>('/v1/sessions')).sessions.length).toBe(before);
      await evil.close();
    } finally {
      other.close();
    }
  }, 30_000);

  it('the server restarts: the page says it is gone, then reconnects and shows the session again', async () => {
    await page.goto(`${url}#${ids.team}`);
    await page.waitForSelector('.conn:has-text("live"), .conn:has-text("session over")', { timeout: 20_000 });
    await stop();
    await page.waitForSelector('.conn.down', { timeout: 20_000 });
    expect(await text('.conn')).toContain('the server is gone');
    await serve(port);
    await page.waitForFunction(() => !document.querySelector('.conn.down'), undefined, { timeout: 30_000 });
    await page.waitForSelector('.session', { timeout: 10_000 });
    expect(await text('.log')).toContain('A lighthouse keeper game');
  }, 90_000);

  it("the server stops mid-turn: once back, the session it ran is shown interrupted (the list's word), not running, and no state is lit as at work", async () => {
    const made = await api<{ id: string }>('/v1/sessions', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ brief: 'A lighthouse keeper game, stopped mid-turn' }),
    });
    await page.goto(`${url}#${made.id}`);
    // Stopped at a turn's first words: the demo's turn has hundreds more to stream.
    await page.waitForFunction(() => (document.querySelector('.live-turn .text')?.textContent ?? '').length > 5, undefined, { timeout: 30_000 });
    await stop();
    await page.waitForSelector('.conn.down', { timeout: 20_000 });
    await serve(port);
    const view = await api<{ status: string; hosted: boolean }>(`/v1/sessions/${made.id}`);
    expect(view).toMatchObject({ status: 'running', hosted: false });
    await page.waitForFunction(() => !document.querySelector('.conn.down'), undefined, { timeout: 30_000 });
    await page.waitForFunction(() => document.querySelector('.state-panel .badge.stopped')?.textContent === 'interrupted', undefined, { timeout: 20_000 });
    expect(await page.locator('.graph .node.active, .state-panel .chip.active').count()).toBe(0);
    expect(await page.locator('.graph .node.current').count()).toBeGreaterThan(0);
  }, 90_000);

  it('on a phone (390×844): laid out in one column, no serious axe violation', async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${url}#${ids.team}`);
    await page.waitForSelector('.state-panel');
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    expect(width).toBeLessThanOrEqual(390);
    await page.screenshot({ path: join(SHOTS, 'console-team-390x844.png') });
    expect(await axeProblems(page)).toEqual([]);
    await page.setViewportSize({ width: 1280, height: 800 });
  }, 60_000);
});
