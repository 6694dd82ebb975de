import { describe, expect, it } from 'vitest';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { sourceOf, type TeamConfig } from '../../src/store/machine-lines.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { copiedTeam, demoRun, editable, editJournal } from '../helpers/edited-team.js';

// probe16: forged machine lines (journal format 8, line 1 of a session holds the team config its steps ran). Each
// hostile line is kept here as the edit that makes it; a reader replays nothing after a line that is no machine of
// the session's, says so in one line, and never throws or makes up an event. A config edited under its line's old
// source is not told apart (the source is not checked against it: the config is stored redacted, so a team with a
// secret-shaped value would hash to another source) — no more than any line of a journal whose chain has no key.

const tempDir = tempDirPerTest('troupe-machine-hostile-');
type Line = Record<string, any>;

const FORGED: [string, (line: Line, n: number) => void, RegExp][] = [
  ['names a later line as its config', (l, n) => n === 1 && (l.machine.team = 5), /from journal line 2 on are not shown: the team recorded at journal line 1 cannot be compiled/],
  ['names itself as its config (a loop)', (l, n) => n === 1 && (l.machine.team = 1), /from journal line 2 on are not shown: the team recorded at journal line 1 cannot be compiled/],
  ['holds a config that fails the schema', (l, n) => n === 1 && (l.machine.team.team.majors = 'x'), /from journal line 2 on are not shown/],
  [
    'holds a config of __proto__ keys',
    (l, n) => n === 1 && (l.machine.team = JSON.parse('{"__proto__":{"polluted":1},"team":{"__proto__":{}},"personas":[]}')),
    /from journal line 2 on are not shown/,
  ],
  ['holds a limit past any turn count', (l, n) => n === 1 && (l.machine.maxTurns = 2 ** 53 - 1), /.^/],
];

describe('a forged machine line', () => {
  for (const [name, edit, gap] of FORGED) {
    it(`that ${name}: the reader says where its events stop, in one line, and shows the inputs`, async () => {
      const dir = tempDir();
      const team = copiedTeam(dir);
      const published = await demoRun(dir, team, 'forged');
      const copy = await editable(dir, 'forged');
      editJournal(copy, edit);
      const read = await new LowdbStore(dir).read('forged');
      if (gap.source === '.^') expect(read.replayGap).toBeUndefined();
      else expect(read.replayGap).toMatch(gap);
      expect(read.events.length).toBeLessThanOrEqual(published.length);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    });
  }

  it("copied whole from another session's journal (its config and source its own): replayed with that config, and the routing it derives differs", async () => {
    const dir = tempDir();
    const team = copiedTeam(dir);
    await demoRun(dir, team, 'forged');
    const copy = await editable(dir, 'forged');
    let other: Line | undefined;
    let own = '';
    editJournal(copy, (l: Line, n) => {
      if (n !== 1) return;
      // Another team's machine line, self-consistent: the game designer cannot hand over to the lead engineer.
      const config = structuredClone(l.machine.team) as TeamConfig & { personas: { id: string; handoff_to: string[] }[] };
      const designer = config.personas.find((p) => p.id === 'game_designer')!;
      designer.handoff_to = designer.handoff_to.filter((t) => t !== 'lead_engineer');
      own = l.machine.source;
      other = { source: sourceOf(config), maxTurns: l.machine.maxTurns, team: config };
      l.machine = other;
    });
    const read = await new LowdbStore(dir).read('forged');
    expect(read.records[0]?.machine?.source).toBe(other?.source);
    expect(other?.source).not.toBe(own);
    expect(read.replayGap).toMatch(/replaying its input derives other events than were published/);
  });
});
