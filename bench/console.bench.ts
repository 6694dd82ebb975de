// The web console: first paint (first-contentful-paint of the page's shell, and the console mounted with its
// session list), and the time from a model's streamed word to the page: each `agent_delta` event is stamped
// (`at`, epoch ms) when the server's bus publishes it, right as the model adapter yields it; the page records
// `Date.now() - at` after the frame that shows it (a requestAnimationFrame, then a task). Same machine, one clock.
// Headless Chromium (Debian's), `troupe serve` from dist/ on the paced demo model (TROUPE_DEMO_PACE_MS=20).
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { median, ms, QUICK } from './stats.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CHROMIUM = '/usr/bin/chromium';

const pct = (values: number[], p: number) => [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(values.length * p))]!;

export default async function bench(): Promise<void> {
  if (!existsSync(CHROMIUM)) {
    process.stdout.write('skipped: chromium is not installed\n');
    return;
  }
  const data = mkdtempSync(join(tmpdir(), 'troupe-bench-console-'));
  const env: NodeJS.ProcessEnv = { ...process.env, TROUPE_DATA_DIR: data, TROUPE_DEMO_PACE_MS: '20' };
  for (const k of Object.keys(env)) if (k.startsWith('OPENAI_') || k === 'TROUPE_MODEL') delete env[k];
  const server = spawn(process.execPath, [join(ROOT, 'dist', 'cli.js'), 'serve', '--port', '0'], { env, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve) => server.stdout!.on('data', (d: Buffer) => resolve(String(d).split('\n')[0]!)));
  const browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu'] });
  try {
    const paints: number[] = [];
    const mounted: number[] = [];
    for (let i = 0; i < (QUICK ? 3 : 9); i++) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
      // The moment the session list is in the page, seen from inside it (checked every 2 ms).
      await page.addInitScript(() => {
        const w = window as unknown as { ready?: number };
        const timer = setInterval(() => {
          if (w.ready === undefined && document.querySelector('.sessions')) {
            w.ready = performance.now();
            clearInterval(timer);
          }
        }, 2);
      });
      await page.goto(url);
      await page.waitForFunction(() => (window as unknown as { ready?: number }).ready !== undefined);
      const figures = await page.evaluate(() => ({
        fcp: performance.getEntriesByName('first-contentful-paint')[0]?.startTime ?? NaN,
        ready: (window as unknown as { ready: number }).ready,
      }));
      paints.push(figures.fcp);
      mounted.push(figures.ready);
      await page.close();
    }
    process.stdout.write(`first contentful paint: median ${ms(median(paints))} (of ${paints.length} loads)\n`);
    process.stdout.write(`console mounted with its session list: median ${ms(median(mounted))} after navigation start (the shell, the 92 KiB script, the catalog and the list)\n`);

    const page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
    await page.addInitScript(() => {
      const lags: number[] = [];
      (window as unknown as { lags: number[] }).lags = lags;
      const add = EventSource.prototype.addEventListener;
      EventSource.prototype.addEventListener = function (this: EventSource, type: string, listener: EventListenerOrEventListenerObject, options?: boolean | AddEventListenerOptions) {
        if (type !== 'agent_delta') return add.call(this, type, listener, options);
        return add.call(
          this,
          type,
          (ev: Event) => {
            (listener as EventListener)(ev);
            const at = Date.parse((JSON.parse((ev as MessageEvent).data as string) as { at: string }).at);
            requestAnimationFrame(() => setTimeout(() => lags.push(Date.now() - at)));
          },
          options,
        );
      } as typeof EventSource.prototype.addEventListener;
    });
    await page.goto(url);
    await page.fill('#brief', 'A lighthouse keeper game');
    await page.getByRole('button', { name: 'Start' }).click();
    await page.waitForSelector('.state-panel .badge.awaiting_user', { timeout: 120_000 });
    const lags = await page.evaluate(() => (window as unknown as { lags: number[] }).lags);
    process.stdout.write(`a model's delta to the page (published → painted): median ${ms(median(lags))}, p95 ${ms(pct(lags, 0.95))}, max ${ms(Math.max(...lags))} over ${lags.length} deltas\n`);
  } finally {
    await browser.close();
    server.kill('SIGTERM');
    await new Promise((r) => server.once('exit', r));
    rmSync(data, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await bench();
