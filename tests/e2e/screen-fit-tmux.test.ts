import { existsSync } from 'node:fs';
import { join } from 'node:path';
import stringWidth from 'string-width';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/team.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { hasTmux, TmuxUi } from '../helpers/tmux.js';

// What a person sees after a whole run: the live area (header, state line, tree, streaming turn, footer,
// hint, input) is redrawn in place, so it appears once; the transcript above it never has a line wider than
// the terminal (one that wraps makes Ink erase a row too few, and the stale rows pile up in the scrollback).

const temp = tempDirPerTest('troupe-fit-tui-');
const uis: TmuxUi[] = [];
beforeAll(() => {
  if (hasTmux && !existsSync(join(REPO_ROOT, 'dist', 'cli.js'))) throw new Error('dist/cli.js is missing: run npm run build first');
});
afterEach(async () => {
  await Promise.all(uis.splice(0).map((ui) => ui.stop()));
});

/** Everything the terminal holds, as one string with the rows a wrapped sentence was laid out in joined by spaces. */
const words = (lines: string[]) => lines.join('\n').replace(/\s+/g, ' ');

/** What the terminal holds once nothing changes any more (a capture taken mid-redraw would miss the live area). */
async function settled(ui: TmuxUi): Promise<string[]> {
  let last = ui.written();
  for (let i = 0; i < 100; i++) {
    await new Promise((r) => setTimeout(r, 150));
    const now = ui.written();
    if (now.join('\n') === last.join('\n')) return now;
    last = now;
  }
  return last;
}

/** The lines wider than `cols`, and how many copies of each live-area row the scrollback and window hold. */
async function seen(ui: TmuxUi, cols: number) {
  const lines = await settled(ui);
  return {
    lines,
    tooWide: lines.filter((l) => stringWidth(l) > cols).map((l) => `${stringWidth(l)}: ${l}`),
    headers: lines.filter((l) => /^troupe · /.test(l)).length,
    footers: lines.filter((l) => /^turn \d+\/\d+ · tokens /.test(l)).length,
  };
}

/** Runs the demo team from a typed brief to its end (the CEO's go decision, then !approve). */
async function wholeDemo(cols: number, rows: number) {
  const ui = new TmuxUi({ TROUPE_DEMO_PACE_MS: '3', TROUPE_DATA_DIR: temp() }, { cols, rows, args: ['--demo'] });
  uis.push(ui);
  await ui.waitFor('the first frame', (s) => s.includes('!help'));
  ui.type('a cozy game about a lighthouse keeper on a stormy island');
  await ui.waitFor('the go decision', () => words(ui.written()).includes('declared the work complete'), 120_000);
  ui.type('!approve');
  await ui.waitFor('the end', () => /Session over|Over ·/.test(ui.visible().join('\n')), 30_000);
  return await seen(ui, cols);
}

describe.skipIf(!hasTmux)(`every line fits the terminal, and the live area is drawn once${hasTmux ? '' : ' (skipped: tmux is not installed)'}`, () => {
  it.each([
    [80, 24],
    [60, 20],
    [40, 16],
    [120, 24],
  ])(
    'the whole demo at %ix%i',
    async (cols, rows) => {
      const s = await wholeDemo(cols, rows);
      expect(s.tooWide, 'lines wider than the terminal').toEqual([]);
      expect(s.headers, `copies of the header in:\n${s.lines.join('\n')}`).toBe(1);
      expect(s.footers, 'copies of the footer').toBe(1);
      // The run really went through: the team's turns are in the transcript, each heading once.
      expect(s.lines.filter((l) => /^▸ STRATEGIC › CEO · turn \d+/.test(l)).length).toBeGreaterThanOrEqual(2);
      expect(words(s.lines)).toContain('you approved');
    },
    200_000,
  );

  it('a workflow at 80x24: its fan-out, debate and revision leave no stale blocks', async () => {
    const ui = new TmuxUi({ TROUPE_DEMO_PACE_MS: '3', TROUPE_DATA_DIR: temp() }, { cols: 80, rows: 24, args: ['--demo'] });
    uis.push(ui);
    await ui.waitFor('the first frame', (s) => s.includes('!help'));
    ui.type('/workflow implement_review_debate implement bech32 in Zig');
    await ui.waitFor('the end', () => ui.visible().join('\n').includes('Workflow over'), 150_000);
    const s = await seen(ui, 80);
    expect(s.tooWide, 'lines wider than the terminal').toEqual([]);
    expect(s.headers, `copies of the header in:\n${s.lines.join('\n')}`).toBe(1);
    expect(s.footers, 'copies of the footer').toBe(1);
    // The workflow's input is echoed once, as its input (the session started before the UI listened to it).
    expect(s.lines.filter((l) => l.endsWith('› implement bech32 in Zig'))).toEqual(['Input › implement bech32 in Zig']);
    // The reviewers' turns say who is speaking.
    expect(s.lines.filter((l) => /^▸ review · Reviewer [AB] · turn \d+( · \[reviewer_[ab]\])?$/.test(l)).length).toBeGreaterThanOrEqual(4);
    // The debate after the revision numbers its rounds on, as the reviewers' words do ("round 3").
    expect(s.lines.some((l) => /^ {2}⚖ Reviewer A \(round 3\): agrees, approves/.test(l))).toBe(true);
    expect(words(s.lines)).toMatch(/workflow implement_review_debate complete: approved after 1 revision\(s\)/);
  }, 200_000);
});
