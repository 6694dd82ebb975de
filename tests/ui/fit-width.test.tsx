import stringWidth from 'string-width';
import { Box } from 'ink';
import { cleanup, render } from 'ink-testing-library';
import { afterEach, describe, expect, it } from 'vitest';
import type { SessionState } from '../../src/engine/session.js';
import { initialState } from '../../src/engine/step.js';
import { hintFor } from '../../src/ui/hints.js';
import { InputLine } from '../../src/ui/InputLine.js';
import { LiveTurn } from '../../src/ui/LiveTurn.js';
import { plannedRows, planScreen, type ScreenParts } from '../../src/ui/screen-plan.js';
import { studio } from '../helpers/team.js';

// What a person sees at a narrow terminal: every row within the width (a wider one wraps, and Ink then
// erases a row too few on the next frame), and hints that say whole words rather than stop mid-word.

const def = studio().def;
afterEach(() => cleanup());
const rowsOf = (frame: string | undefined) => (frame ?? '').split('\n');
const WIDTHS = [40, 50, 60, 70, 80, 100];

describe('rows fit the terminal', () => {
  it('the live turn heading keeps its clock and fits, however long the place and model are', () => {
    const live = { turnId: 't', persona: 'creative_partner', path: 'CREATIVE.creative_partner', model: 'demo', attempt: 1, text: '', startedAt: 0 };
    for (const width of WIDTHS) {
      for (const text of ['', 'The keeper tends a failing light on a stormy island, and every choice spends the oil.']) {
        const frame = render(
          <Box width={width}>
            <LiveTurn live={{ ...live, text }} def={def} width={width} maxLines={3} now={3_000} modelLabel="demo model" />
          </Box>,
        ).lastFrame();
        const rows = rowsOf(frame);
        for (const row of rows) expect(stringWidth(row), `${width}: ${row}`).toBeLessThanOrEqual(width);
        // The heading says who answers and how long it has been; the end of the place gives way first.
        expect(rows[0], `${width}`).toMatch(/^▸ CREATIVE › Creative/);
        expect(rows[0], `${width}`).toMatch(/ 3s$/);
        cleanup();
      }
    }
  });

  it('the next-step hint is a whole wording at every width, never one cut mid-word', () => {
    const base = initialState(def, { id: 's' });
    const states: SessionState[] = [
      base,
      { ...base, status: 'running' },
      { ...base, status: 'ended' },
      { ...base, status: 'awaiting_user', awaiting: { code: 'gate', reason: 'gate' } },
      { ...base, status: 'awaiting_user', awaiting: { code: 'complete', reason: 'done' } },
      { ...base, status: 'awaiting_user', awaiting: { code: 'limit', reason: 'limit' } },
      { ...base, status: 'awaiting_user', awaiting: { code: 'question', reason: 'q' } },
    ] as SessionState[];
    for (const width of WIDTHS) {
      for (const s of states) {
        const hint = hintFor(s, width);
        const frame = render(
          <Box width={width}>
            <InputLine value="" hint={hint} candidates={[]} width={width} />
          </Box>,
        ).lastFrame();
        const shown = rowsOf(frame)[0]!;
        expect(shown, `${width}`).toBe(hint);
        expect(shown).not.toMatch(/…$/);
        expect(stringWidth(shown)).toBeLessThanOrEqual(width);
        cleanup();
      }
    }
    // The full wording where it fits.
    expect(hintFor(states[0]!, 100)).toBe('Type a brief for the team and press Enter (e.g. a game idea) · !help lists commands');
  });

  it('a long typed line wraps under itself within the width, its start marked … when it has more rows than fit', () => {
    const typed = 'make the keeper older, the storms worse in winter, and the oil scarcer every chapter of the game';
    const rows = rowsOf(
      render(
        <Box width={40}>
          <InputLine value={typed} hint="h" candidates={[]} width={40} maxRows={2} />
        </Box>,
      ).lastFrame(),
    ).slice(1);
    expect(rows).toHaveLength(2);
    expect(rows[0]).toMatch(/^… \S/);
    for (const row of rows) expect(stringWidth(row)).toBeLessThan(40);
    expect(rows[1]).toMatch(/^ {2}every chapter of the game ?$/);
  });
});

describe('the screen plan', () => {
  it('keeps the whole live area at least one row shorter than the terminal, whatever it holds', () => {
    for (let rows = 6; rows <= 50; rows++) {
      for (const live of [{ kind: 'turn' }, { kind: 'branches', count: 5 }, { kind: 'none' }] as ScreenParts['live'][]) {
        const parts: ScreenParts = { rows, header: 2, tree: rows >= 18 ? 7 : 0, live, arbitration: 3, candidates: true, input: 4 };
        const plan = planScreen(parts);
        expect(plannedRows(parts, plan), `${rows} ${live.kind}`).toBeLessThanOrEqual(rows - 1);
        // What matters most is always there: the typed line, and a streaming turn's heading from 7 rows up.
        expect(plan.inputRows).toBeGreaterThanOrEqual(1);
        if (live.kind === 'turn' && rows >= 7) expect(plan.liveHead).toBe(true);
      }
    }
    // A tall terminal shows it all.
    const tall = planScreen({ rows: 50, header: 2, tree: 7, live: { kind: 'turn' }, arbitration: 2, candidates: false, input: 1 });
    expect(tall).toMatchObject({ margin: true, demoNotice: true, tree: true, liveLines: 12, arbitrationRows: 2 });
  });
});
