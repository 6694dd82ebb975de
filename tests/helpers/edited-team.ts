// A user's own team directory, a demo session run on it, and the edits a user makes to it after (a persona renamed,
// a handoff target dropped): what the readers of a stored session must not take for the team the session ran.
import { cpSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DemoModel } from '../../src/llm/demo-model.js';
import { openSession } from '../../src/session/open-session.js';
import { CHAIN_START, sealLine } from '../../src/store/journal-chain.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { BRIEF, ENV } from '../store/support.js';
import { fixedClock, REPO_ROOT } from './team.js';

/** A copy of the shipped team in `dir` (a user's own team directory, which they may edit after a session ran). */
export function copiedTeam(dir: string): string {
  const team = join(dir, 'team');
  for (const part of ['personas', 'prompts']) cpSync(join(REPO_ROOT, part), join(team, part), { recursive: true });
  return team;
}

/** Edits a persona's JSON file in a team directory. */
export function editPersona(team: string, id: string, edit: (persona: Record<string, unknown>) => void): void {
  const file = join(team, 'personas', `${id}.json`);
  const persona = JSON.parse(readFileSync(file, 'utf8')) as Record<string, unknown>;
  edit(persona);
  writeFileSync(file, JSON.stringify(persona, null, 2));
}

// The game designer hands over to the lead engineer at turn 4 (a blocking dependency); without it among its targets
// the arbitration picks another persona: the same kinds of event, with another winner and target.
export const dropLeadEngineer = (persona: Record<string, unknown>) => {
  persona.handoff_to = (persona.handoff_to as string[]).filter((t) => t !== 'lead_engineer');
};

/** Runs the demo brief on the team in `team`, stored in `dir`: the events it published. */
export async function demoRun(dir: string, team: string, id: string, maxTurns?: number) {
  const session = await openSession({
    store: new LowdbStore(dir),
    team,
    model: new DemoModel(),
    id,
    brief: BRIEF,
    env: ENV,
    clock: fixedClock(),
    memory: false,
    ...(maxTurns !== undefined ? { maxTurns } : {}),
  });
  session.start(BRIEF);
  await session.settled();
  const events = session.recent();
  await session.stop();
  return events;
}

/** Session `id` in `dir` as a document holding its last checkpoint (no slots beside it), so its journal can be rewritten. */
export async function editable(dir: string, id: string): Promise<{ path: string; journal: string }> {
  const path = join(dir, 'sessions', `${id}.json`);
  writeFileSync(path, JSON.stringify(await new LowdbStore(dir).document(id)));
  rmSync(join(dir, 'sessions', `${id}.checkpoint`), { force: true });
  return { path, journal: join(dir, 'sessions', `${id}.jsonl`) };
}

/** Rewrites a copied journal's lines with `edit` (each parsed line without its seal), sealed and chained again, the document's checkpoint pointing at the new last line. */
export function editJournal(copy: { path: string; journal: string }, edit: (line: Record<string, unknown>, n: number) => void): void {
  let prev = CHAIN_START;
  const lines = readFileSync(copy.journal, 'utf8')
    .trimEnd()
    .split('\n')
    .map((text, i) => {
      const { prev: _p, hash: _h, ...line } = JSON.parse(text) as Record<string, unknown>;
      edit(line, i + 1);
      const sealed = sealLine(JSON.stringify(line), prev);
      prev = sealed.hash;
      return sealed.line;
    });
  writeFileSync(copy.journal, `${lines.join('\n')}\n`);
  const doc = JSON.parse(readFileSync(copy.path, 'utf8'));
  doc.checkpoint.hash = prev;
  writeFileSync(copy.path, JSON.stringify(doc));
}
