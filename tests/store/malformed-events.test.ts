import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { demoProgress } from '../../src/store/demo-progress.js';
import { checkEvents } from '../../src/store/event-schema.js';
import { parseSessionFile, SessionFileError } from '../../src/store/load-file.js';
import { renderMarkdown, renderShow } from '../../src/store/render.js';
import type { SessionFile } from '../../src/store/session-file.js';
import { summarise, usageTotals } from '../../src/store/summary.js';
import { REPO_ROOT, studio } from '../helpers/team.js';

const FIXTURE = join(REPO_ROOT, 'tests', 'fixtures', 'sessions', 'v1.json');

/** The v1 fixture with an edit applied to its raw document, loaded like `troupe show` loads it. */
function edited(edit: (doc: any) => void): SessionFile {
  const doc = JSON.parse(readFileSync(FIXTURE, 'utf8'));
  edit(doc);
  return parseSessionFile(JSON.stringify(doc), 'f.json').file;
}

const indexOf = (doc: any, type: string, nth = 0) => doc.events.map((e: any, i: number) => (e.type === type ? i : -1)).filter((i: number) => i >= 0)[nth] as number;

describe('malformed events in a session file', () => {
  it('the fixture has no malformed event', () => {
    const file = edited(() => {});
    expect(checkEvents(file.events).skipped).toEqual([]);
  });

  it('show and export skip an arbitration without decision and a directive without directive, each with a one-line note', () => {
    let arb = -1;
    let dir = -1;
    const file = edited((doc) => {
      arb = indexOf(doc, 'arbitration');
      dir = indexOf(doc, 'directive');
      delete doc.events[arb].decision;
      delete doc.events[dir].directive;
    });
    const notes = [
      `events[${Math.min(arb, dir)}] (${arb < dir ? 'arbitration' : 'directive'}) is malformed and was skipped`,
      `events[${Math.max(arb, dir)}] (${arb < dir ? 'directive' : 'arbitration'}) is malformed and was skipped`,
    ];
    const shown = renderShow(file, studio().def);
    expect(shown.filter((l) => l.startsWith('! '))).toEqual([expect.stringContaining(notes[0]!), expect.stringContaining(notes[1]!)]);
    expect(shown.find((l) => l.includes('(arbitration)'))).toMatch(/— decision: /);
    expect(shown).toContain('Decisions:');
    const md = renderMarkdown(file, studio().def);
    expect(md).toContain(`> **note:** ${notes[0]}`);
    expect(md).toContain('## Decisions');
  });

  it('a proposal with a non-numeric score, or a usage event with text tokens, is skipped rather than crashing', () => {
    const file = edited((doc) => {
      const arb = doc.events[indexOf(doc, 'arbitration')];
      arb.decision.proposals[0].score = 'high';
      doc.events[indexOf(doc, 'usage')].prompt_tokens = 'many';
      doc.events[indexOf(doc, 'directive', 1)].directive.key_decisions = 7;
    });
    expect(() => renderShow(file, studio().def)).not.toThrow();
    expect(renderShow(file, studio().def).filter((l) => l.startsWith('! '))).toHaveLength(3);
    expect(() => renderMarkdown(file, studio().def)).not.toThrow();
    const clean = usageTotals(edited(() => {}));
    expect(usageTotals(file).tokens).toBeLessThan(clean.tokens);
    expect(() => summarise(file, null)).not.toThrow();
  });

  it('a resumed demo counts only well-formed turns', () => {
    const file = edited((doc) => {
      delete doc.events[indexOf(doc, 'agent_started')].persona;
    });
    const progress = demoProgress(file.events);
    expect(Object.keys(progress)).not.toContain('undefined');
  });

  it('a damaged transcript entry in the snapshot (which the engine reads) refuses the file, naming the field', () => {
    const load = () =>
      edited((doc) => {
        const entry = doc.snapshot.transcript.find((t: any) => t.directive);
        entry.directive.key_decisions = 'all of them';
      });
    expect(load).toThrow(SessionFileError);
    expect(load).toThrow(/^f\.json: snapshot\.transcript\.\d+\.directive\.key_decisions: .* — the file is corrupt or was edited by hand/);
  });
});
