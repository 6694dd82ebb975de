import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import { checkEvents } from '../../src/report/checked-events.js';
import { renderMarkdown, renderShow } from '../../src/report/session-report.js';
import { foldJournal } from '../../src/session/fold.js';
import { restoreRecord } from '../../src/store/journal-codec.js';
import { parseSessionFile } from '../../src/store/load-file.js';
import { REPO_ROOT, studio } from '../helpers/team.js';

// Probe of journal format 5's decision rows (src/store/decision-rows.ts): a line edited by hand (its seal can be
// recomputed: there is no key) with hostile rows, shapes, winners and packed indexes. Reading it must neither
// throw past the line's own check, nor pollute a prototype, nor hand readers a winner that is not one of the
// proposals; show and export skip what is malformed with a note.

const FIXTURES = join(REPO_ROOT, 'tests', 'fixtures', 'sessions');
const lines = readFileSync(join(FIXTURES, 'v5.jsonl'), 'utf8').trim().split('\n');
const packedLine = () => JSON.parse(lines.find((l) => l.includes('"packed"'))!);
const arbitrationOf = (line: any) => line.events.findIndex((e: any) => e.type === 'arbitration');

const ROW = (shape: unknown) => [shape, 'game_designer', 'agent', [0.6, 0.7, 0.7], 'HANDOFF_TO_AGENT', 'creative_partner', 'game_designer', 0.67, 'winner'];

/** The line's arbitration after an edit to its decision, shapes or packed list, read back as a reader gets it. */
function restored(edit: (line: any, decision: any) => void): { decision: any; events: TroupeEvent[] } {
  const line = packedLine();
  const at = arbitrationOf(line);
  edit(line, line.events[at].decision);
  const record = restoreRecord(line, 'fixture-v5');
  return { decision: (record.events[at] as any).decision, events: record.events as unknown as TroupeEvent[] };
}

const HOSTILE: [string, (line: any, decision: any) => void][] = [
  ['winner -1', (_l, d) => (d.winner = -1)],
  ['winner past the end', (_l, d) => (d.winner = 1e9)],
  ['winner a fraction', (_l, d) => (d.winner = 0.5)],
  ['winner NaN-like string', (_l, d) => (d.winner = 'NaN')],
  ['row shape -1', (_l, d) => (d.proposals[0] = ROW(-1))],
  ['row shape huge', (_l, d) => (d.proposals[0] = ROW(2 ** 40))],
  ['row shape a known number past the list', (l, d) => ((l.shapes = [99]), (d.proposals[0] = ROW(0)))],
  ['shape naming __proto__', (l, d) => ((l.shapes = [['__proto__', 'source', 'criteria', 'reason', 'proposer', 'targetId', 'score', 'status']]), (d.proposals[0] = ROW(0)))],
  ['shape naming constructor and toString', (l, d) => ((l.shapes = [['constructor', 'toString', 'criteria', 'reason', 'proposer', 'targetId', 'score', 'status']]), (d.proposals[0] = ROW(0)))],
  ['shape of the wrong length', (l, d) => ((l.shapes = [['target']]), (d.proposals[0] = ROW(0)))],
  ['shapes not a list', (l) => (l.shapes = { 0: 0 })],
  ['criteria row holding objects', (_l, d) => (d.proposals[0] = [0, 'x', 'agent', [{}, [], null], 'R', 'p', 'x', 0.5, 'winner'])],
  ['a target not in the team', (_l, d) => (d.proposals[0] = [0, 'nobody\x1b]52;c;aGk=\x07', 'agent', [0.6, 0.7, 0.7], 'R', 'p', 'nobody', 0.5, 'winner'])],
  ['packed indexes out of range', (l) => (l.packed = [-1, 1e9, 'x', null, 0.5])],
];

describe('hostile decision rows in a journal line', () => {
  for (const [name, edit] of HOSTILE) {
    it(`${name}: read without throwing or polluting, and any winner is one of the proposals`, () => {
      const { decision, events } = restored(edit);
      expect(({} as any).target, name).toBeUndefined();
      expect(({} as any).source, name).toBeUndefined();
      expect(Object.getPrototypeOf(decision.proposals[0] ?? {}), name).not.toBeNull();
      if (decision.winner !== null && typeof decision.winner === 'object') expect(decision.proposals, name).toContain(decision.winner);
      // show and export take it (skipping it when malformed), one line each, no throw.
      const doc = parseSessionFile(readFileSync(join(FIXTURES, 'v5.json'), 'utf8'), 'f.json').file;
      const record = { doc, events: checkEvents(events).events };
      expect(() => renderShow(record, studio().def), name).not.toThrow();
      expect(() => renderMarkdown(record, studio().def), name).not.toThrow();
    });
  }

  it('a malformed winner (an index that names no proposal) is skipped by readers, not shown as a decision', () => {
    for (const winner of [-1, 1e9, 0.5]) {
      const { events } = restored((_l, d) => (d.winner = winner));
      const { skipped } = checkEvents(events);
      expect(
        skipped.some((s) => s.includes('(arbitration) is malformed')),
        String(winner),
      ).toBe(true);
    }
  });

  it('a shape naming __proto__ is left a row (no proposal object gets that key as its prototype)', () => {
    const { decision } = restored((l, d) => {
      l.shapes = [['__proto__', 'source', 'criteria', 'reason', 'proposer', 'targetId', 'score', 'status']];
      d.proposals[0] = ROW(0);
    });
    expect(Array.isArray(decision.proposals[0])).toBe(true);
  });
});

describe('journal inputs naming agents that are not in the team, folded on resume or for a listing', () => {
  it('a handoff to __proto__, constructor, toString, hasOwnProperty or nobody folds to a state of the team, without throwing or polluting', () => {
    const doc = parseSessionFile(readFileSync(join(FIXTURES, 'v5.json'), 'utf8'), 'f.json').file;
    const honest = foldJournal(
      studio().def,
      doc.base,
      lines.map((l) => restoreRecord(JSON.parse(l), 'fixture-v5')),
    );
    const agents = new Set(studio().def.agents.map((a) => a.id));
    for (const target of ['__proto__', 'constructor', 'toString', 'hasOwnProperty', 'nobody']) {
      const records = lines.map((l) => restoreRecord(JSON.parse(l), 'fixture-v5'));
      let edited = 0;
      for (const r of records as any[]) {
        if (r.input?.directive?.directive?.next_agent) {
          r.input.directive.directive.next_agent = target;
          edited += 1;
        }
      }
      expect(edited, target).toBeGreaterThan(0);
      const s = foldJournal(studio().def, doc.base, records);
      if (s.active !== null) expect(agents.has(s.active), `${target}: active ${s.active}`).toBe(true);
      expect(({} as any).polluted, target).toBeUndefined();
      // The handoffs went nowhere: the session is not where the honest journal left it.
      expect(s.turn, target).toBeLessThan(honest.turn);
    }
  });
});
