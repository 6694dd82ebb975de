/// <reference lib="dom" />
/// <reference lib="dom.iterable" />
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { chromium, type Browser } from 'playwright-core';
import { cleanEnv } from '../helpers/cli.js';
import { REPO_ROOT } from '../helpers/team.js';

const CHROMIUM = '/usr/bin/chromium';
const hasChromium = existsSync(CHROMIUM);
let server: ChildProcess | null = null;
let browser: Browser | null = null;
let url = '';
const data = mkdtempSync(join(tmpdir(), 'troupe-serve-'));

describe.skipIf(!hasChromium)(`the live page in a real browser${hasChromium ? '' : ' (skipped: chromium is not installed; .ci/run installs it)'}`, () => {
  beforeAll(async () => {
    server = spawn(process.execPath, [join(REPO_ROOT, 'dist', 'cli.js'), 'serve', '--port', '0'], {
      env: cleanEnv({ TROUPE_DATA_DIR: data, TROUPE_SERVE_TOKEN: 'page-token-0123456789', TROUPE_DEMO_PACE_MS: '3' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    url = await new Promise<string>((resolve, reject) => {
      let out = '';
      server!.stdout!.on('data', (d: Buffer) => {
        out += d.toString();
        const first = out.split('\n')[0]!;
        if (out.includes('\n')) resolve(first);
      });
      server!.once('exit', (code) => reject(new Error(`serve exited ${code}`)));
    });
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  }, 30_000);

  afterAll(async () => {
    await browser?.close();
    server?.kill('SIGTERM');
    await new Promise((r) => server?.once('exit', r));
    rmSync(data, { recursive: true, force: true });
  });

  it('creates a session, shows a transition arriving, sends !handoff CEO and shows the CEO answering', async () => {
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    const page = await browser!.newPage();
    await page.goto(url);
    await page.fill('#token', 'page-token-0123456789');
    await page.dispatchEvent('#token', 'change');
    await page.fill('#brief', 'A lighthouse keeper game');
    await page.click('#create button');
    await page.waitForSelector('#log .transition', { timeout: 15_000 });
    // The page shows the display items the terminal prints: names and paths as people read them.
    expect(await page.textContent('#log')).toContain('USER_INTERACTION › You -> CREATIVE › Creative Partner (SYSTEM) — brief received');
    await page.waitForFunction(() => document.querySelector('#state')?.textContent?.includes('waiting'), undefined, { timeout: 15_000 });
    expect(await page.textContent('#log')).toContain('⤷ HANDOFF_TO_AGENT → game_designer');
    await page.fill('#line', '!handoff CEO');
    await page.click('#input button');
    // The demo's own CEO turns came earlier: wait for a CEO turn after the user's handoff, not any CEO turn.
    await page.waitForFunction(() => {
      const log = document.querySelector('#log')?.textContent ?? '';
      const handed = log.search(/-> STRATEGIC › CEO \(USER\)/);
      return handed >= 0 && log.indexOf('CEO: ', handed) > handed;
    }, undefined, { timeout: 15_000 });
    expect(await page.textContent('#arbiter')).toContain('arbiter: CEO 1.00 [user] ✓');
    expect(await page.textContent('#state')).toMatch(/\d+ call\(s\) · \d+ tokens/);
    await page.close();
  });
});
