import { describe, expect, it } from 'vitest';
import { initialState } from '../../src/engine/step.js';
import { columnsOf } from '../../src/ui/columns.js';
import { rowText } from '../../src/ui/pieces.js';
import { layoutTree, teamTreeLines, treeHeight } from '../../src/ui/tree-rows.js';
import { studio } from '../helpers/team.js';

const def = studio().def;

describe('the state tree laid out in a width', () => {
  it("wraps a major's personas onto rows of their own under its personas, never past the width, and cuts one wider than a row", () => {
    const s = { ...initialState(def, { id: 's' }), status: 'running' as const, active: 'game_designer', visits: { 'CREATIVE.game_designer': 2 } };
    const lines = teamTreeLines(def, s, { game_designer: { ok: 1, back: 0 } });
    for (const width of [40, 60, 70, 80, 120]) {
      const layout = layoutTree(lines, width);
      const shown = layout.rows.map((r) => `${r.label.padEnd(layout.labelWidth)}${rowText(r.entries)}`);
      for (const row of shown) expect(columnsOf(row), `${width}: ${row}`).toBeLessThanOrEqual(width);
      // Every persona is shown, in order, whatever the width.
      expect(shown.join(' ')).toMatch(/Creative Partner\s+ Game Designer ▸ {2}×2 ✓1\s+Concept Artist\s+Art Director/);
      expect(treeHeight(layout)).toBe(layout.rows.length + 2);
    }
    const narrow = layoutTree(lines, 60);
    const creative = narrow.rows.findIndex((r) => r.label === 'CREATIVE');
    // The rows a major wraps onto have no label: its personas continue under its personas.
    expect(narrow.rows[creative + 1]!.label).toBe('');
    expect(
      layoutTree([{ label: 'X', entries: [[{ text: 'a very long persona name that cannot fit' }]] }], 20)
        .rows[0]!.entries.map((p) => p.text)
        .join(''),
    ).toMatch(/…$/);
  });
});
