// ENGINE_SEMANTICS: a schema-8 journal stores a step's input, not its events, so a reader replays step(). This pins a
// journal written by a real run beside the events it published: when step() derives other events for the same
// inputs, replaying it no longer gives them, and the fix is to bump ENGINE_SEMANTICS (readers then tell old lines apart).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ENGINE_SEMANTICS } from '../../src/engine/semantics.js';
import { scanJournal } from '../../src/store/journal-file.js';
import { journalReplay } from '../../src/store/journal-replay.js';
import { SessionDocumentSchema, type JournalRecord } from '../../src/store/session-file.js';
import { REPO_ROOT } from '../helpers/team.js';

const FIXTURES = join(REPO_ROOT, 'tests', 'fixtures', 'sessions');
// The pinned journal: written under ENGINE_SEMANTICS 1 by make-fixture.ts.
const PINNED = 'v8';

function replayPinned(): { records: JournalRecord[]; events: unknown[]; gap: string | null } {
  const doc = SessionDocumentSchema.parse(JSON.parse(readFileSync(join(FIXTURES, `${PINNED}.json`), 'utf8')));
  // The fixture names its team relative ("."): it is this repository's.
  const replay = journalReplay({ ...doc, team: { ...doc.team, dir: REPO_ROOT } });
  const records: JournalRecord[] = [];
  scanJournal(
    join(FIXTURES, `${PINNED}.jsonl`),
    (r, line) => {
      replay.next(r, line);
      records.push(r);
    },
    { chained: true, sessionId: doc.id },
  );
  return { records, events: records.flatMap((r) => r.events), gap: replay.gap ? `line ${replay.gap.line}: ${replay.gap.why}` : null };
}

describe('ENGINE_SEMANTICS', () => {
  it('replaying the pinned format-8 journal derives the events its run published', () => {
    const published = JSON.parse(readFileSync(join(FIXTURES, `${PINNED}.events.json`), 'utf8')) as unknown[];
    const { events, gap } = replayPinned();
    const first = published.findIndex((e, i) => JSON.stringify(e) !== JSON.stringify(events[i]));
    const advice =
      `step() derives other events from the inputs of tests/fixtures/sessions/${PINNED}.jsonl than its run published ` +
      `(${gap ?? `first difference at event ${first}: ${JSON.stringify(events[first])?.slice(0, 200)}`}). ` +
      `If the change is meant, bump ENGINE_SEMANTICS in src/engine/semantics.ts (now ${ENGINE_SEMANTICS}) so readers of older journals tell their lines apart, ` +
      `then pin a journal of the new semantics (node --import tsx tests/fixtures/sessions/make-fixture.ts) and name it in PINNED here.`;
    expect(gap, advice).toBeNull();
    expect(events.length, advice).toBe(published.length);
    expect(first, advice).toBe(-1);
  });

  it('every step line of the pinned journal is stamped with the semantics it was written under, the one this build replays', () => {
    const lines = readFileSync(join(FIXTURES, `${PINNED}.jsonl`), 'utf8')
      .trimEnd()
      .split('\n')
      .map((l) => JSON.parse(l) as { input?: unknown; step?: number[] });
    const steps = lines.filter((l) => l.input !== undefined);
    expect(steps.length).toBeGreaterThan(10);
    for (const l of steps) expect(l.step?.[0]).toBe(ENGINE_SEMANTICS);
  });
});
