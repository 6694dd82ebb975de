import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import { demoProgress } from '../../src/session/demo-progress.js';
import { checkEvents } from '../../src/report/checked-events.js';
import { renderMarkdown, renderShow, type StoredSessionReport } from '../../src/report/session-report.js';
import { parseSessionFile, SessionFileError } from '../../src/store/load-file.js';
import { REPO_ROOT, studio } from '../helpers/team.js';

const FIXTURES = join(REPO_ROOT, 'tests', 'fixtures', 'sessions');

/** The v2 fixture with an edit applied to its raw events, loaded like `troupe show` loads it. */
function edited(edit: (events: any[]) => void): StoredSessionReport {
  const doc = parseSessionFile(readFileSync(join(FIXTURES, 'v2.json'), 'utf8'), 'f.json').file;
  const events = readFileSync(join(FIXTURES, 'v2.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .flatMap((l) => JSON.parse(l).events);
  edit(events);
  return { doc, events: events as TroupeEvent[] };
}

const indexOf = (events: any[], type: string, nth = 0) => events.map((e: any, i: number) => (e.type === type ? i : -1)).filter((i: number) => i >= 0)[nth] as number;

describe('malformed events in a session log', () => {
  it('the fixture has no malformed event', () => {
    expect(checkEvents(edited(() => {}).events).skipped).toEqual([]);
  });

  it('show and export skip an arbitration without decision and a directive without directive, each with a one-line note', () => {
    let arb = -1;
    let dir = -1;
    const record = edited((events) => {
      arb = indexOf(events, 'arbitration');
      dir = indexOf(events, 'directive');
      delete events[arb].decision;
      delete events[dir].directive;
    });
    const notes = [
      `events[${Math.min(arb, dir)}] (${arb < dir ? 'arbitration' : 'directive'}) is malformed and was skipped`,
      `events[${Math.max(arb, dir)}] (${arb < dir ? 'directive' : 'arbitration'}) is malformed and was skipped`,
    ];
    const shown = renderShow(record, studio().def);
    expect(shown.filter((l) => l.startsWith('! '))).toEqual([expect.stringContaining(notes[0]!), expect.stringContaining(notes[1]!)]);
    expect(shown.find((l) => l.includes('(arbitration)'))).toMatch(/— decision: /);
    expect(shown).toContain('Decisions:');
    const md = renderMarkdown(record, studio().def);
    expect(md).toContain(`> **note:** ${notes[0]}`);
    expect(md).toContain('## Decisions');
  });

  it('a proposal with a non-numeric score, or a usage event with text tokens, is skipped rather than crashing', () => {
    const record = edited((events) => {
      events[indexOf(events, 'arbitration')].decision.proposals[0].score = 'high';
      events[indexOf(events, 'usage')].prompt_tokens = 'many';
      events[indexOf(events, 'directive', 1)].directive.key_decisions = 7;
    });
    expect(() => renderShow(record, studio().def)).not.toThrow();
    expect(renderShow(record, studio().def).filter((l) => l.startsWith('! '))).toHaveLength(3);
    expect(() => renderMarkdown(record, studio().def)).not.toThrow();
  });

  it('a resumed demo counts only well-formed turns', () => {
    const record = edited((events) => {
      delete events[indexOf(events, 'agent_started')].persona;
    });
    const progress = demoProgress(record.events as TroupeEvent[]);
    expect(Object.keys(progress)).not.toContain('undefined');
  });

  it('a damaged field of the snapshot (which the engine reads) refuses the file, naming the field', () => {
    const doc = JSON.parse(readFileSync(join(FIXTURES, 'v2.json'), 'utf8'));
    doc.checkpoint.snapshot.routing.queue = [{ target: 'ceo', expires: 'soon' }];
    const load = () => parseSessionFile(JSON.stringify(doc), 'f.json');
    expect(load).toThrow(SessionFileError);
    expect(load).toThrow(/^f\.json: checkpoint\.snapshot\.routing\.queue\.0\.\w+: .* — the file is corrupt or was edited by hand/);
  });
});
