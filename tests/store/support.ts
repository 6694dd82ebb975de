import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionState } from '../../src/engine/session.js';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import { step } from '../../src/engine/step.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import { demoProgress } from '../../src/session/demo-progress.js';
import type { ChatModel, ChatRequest, ChatResponse } from '../../src/llm/chat-model.js';
import { openSession } from '../../src/session/open-session.js';
import type { StoredCopy } from '../../src/store/memory-store.js';
import type { JournalRecord, SessionDocument } from '../../src/store/session-file.js';
import type { Store } from '../../src/store/store.js';
import { transcriptOf, type TranscriptEntry } from '../../src/memory/transcript.js';
import { fixedClock, REPO_ROOT, studio } from '../helpers/team.js';

/** The brief every store test runs. */
export const BRIEF = 'A lighthouse keeper game';

/** The environment store tests run in (every tier on one model id). */
export const ENV = { TROUPE_MODEL: 'test-model' };

/** Wraps a model with a fixed delay per call (abortable), so a child process can be killed mid-call. */
export class SlowModel implements ChatModel {
  readonly label: string;
  constructor(
    private readonly inner: ChatModel,
    private readonly delayMs: number,
  ) {
    this.label = inner.label;
  }
  async generate(request: ChatRequest): Promise<ChatResponse> {
    await new Promise((r) => setTimeout(r, this.delayMs));
    return this.inner.generate(request);
  }
}

/** Every state a stored session stepped through, by folding its journal from its base. */
export function statesOf(doc: SessionDocument, records: readonly JournalRecord[]): SessionState[] {
  const def = studio().def;
  const out: SessionState[] = [];
  let s = doc.base;
  for (const r of records) {
    if (!r.input) continue;
    s = step(def, s, r.input).session;
    out.push(s);
  }
  return out;
}

/** The parsed document and journal of a stored copy. */
export function parsedCopy(copy: StoredCopy): { doc: SessionDocument; records: JournalRecord[] } {
  return { doc: JSON.parse(copy.doc) as SessionDocument, records: copy.journal.map((l) => JSON.parse(l) as JournalRecord) };
}

/** The state a stored copy holds: its checkpoint with the journal after it folded on top. */
export function stateOfCopy(copy: StoredCopy): SessionState {
  const { doc, records } = parsedCopy(copy);
  const states = statesOf({ ...doc, base: doc.checkpoint.snapshot }, records.slice(doc.checkpoint.records));
  return states.at(-1) ?? doc.checkpoint.snapshot;
}

/** What a run leaves: the states it stepped through, the final state, its events and transcript. */
export interface RunResult {
  steps: SessionState[];
  final: SessionState;
  events: TroupeEvent[];
  transcript: TranscriptEntry[];
}

async function finish(store: Store, id: string, final: SessionState): Promise<RunResult> {
  const read = await store.read(id);
  return { steps: statesOf(read.doc, read.records), final, events: read.events, transcript: transcriptOf(read.events) };
}

/** Runs the demo brief uninterrupted into a store. */
export async function uninterrupted(store: Store, id = 'ref'): Promise<RunResult> {
  const session = await openSession({ store, team: studio(), teamDir: REPO_ROOT, model: new DemoModel(), id, brief: BRIEF, clock: fixedClock(), env: ENV });
  session.start(BRIEF);
  await session.settled();
  await session.stop();
  return finish(store, id, session.getSnapshot());
}

/** Reopens a stored session on the demo model (continuing its script), runs it until it settles and closes it. */
export async function resumeDemo(store: Store, id = 'ref'): Promise<RunResult & { start: SessionState }> {
  const session = await openSession({
    store,
    resume: id,
    team: studio(),
    env: ENV,
    clock: fixedClock(),
    model: async (stored) => new DemoModel(demoProgress(await stored!.events())),
  });
  const start = session.getSnapshot();
  session.resume();
  await session.settled();
  await session.stop();
  return { start, ...(await finish(store, id, session.getSnapshot())) };
}

/** A session state without its id, for comparing runs stored under different ids. */
export function comparable(s: SessionState): Omit<SessionState, 'id'> {
  const { id: _id, ...rest } = s;
  return rest;
}

const WAITING_CHILD = join(REPO_ROOT, 'tests', 'store', 'waiting-kill-child.ts');

/** Runs tests/store/waiting-kill-child.ts until it says its session waits (its writes landed), then SIGKILLs it; resolves with what it said. */
export function runUntilWaiting(dataDir: string, id: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', WAITING_CHILD, dataDir, id], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      if (out.includes('\n')) child.kill('SIGKILL');
    });
    child.on('error', reject);
    child.on('exit', (_code, signal) => (signal === 'SIGKILL' ? resolve(out.trim()) : reject(new Error(`child ended before the kill: ${stderr}`))));
  });
}

/** Where the stored fixture sessions are: `v<version>.json` and `v<version>.jsonl`. */
export const SESSION_FIXTURES = join(REPO_ROOT, 'tests', 'fixtures', 'sessions');

/** Copies the stored fixture session of schema `version` into the sessions folder `sessions`; its id, `fixture-v<version>`. */
export function copyFixtureSession(sessions: string, version: number): string {
  const id = `fixture-v${version}`;
  copyFileSync(join(SESSION_FIXTURES, `v${version}.json`), join(sessions, `${id}.json`));
  copyFileSync(join(SESSION_FIXTURES, `v${version}.jsonl`), join(sessions, `${id}.jsonl`));
  return id;
}

/** The version-`version` session fixture copied into a new data directory `dir`: where its document and journal are. */
export function fixtureInDataDir(dir: string, version: number): { dir: string; path: string; journal: string } {
  const sessions = join(dir, 'sessions');
  mkdirSync(sessions, { recursive: true });
  const id = copyFixtureSession(sessions, version);
  return { dir, path: join(sessions, `${id}.json`), journal: join(sessions, `${id}.jsonl`) };
}

/** A data dir `<root>/.troupe` holding the stored fixture session of schema `version`, and a file of the user's beside it (`victim`). */
export function dataDirWith(root: string, version: number): { dir: string; sessions: string; id: string; victim: string } {
  const dir = join(root, '.troupe');
  const sessions = join(dir, 'sessions');
  mkdirSync(sessions, { recursive: true });
  const id = copyFixtureSession(sessions, version);
  const victim = join(root, 'users-file');
  // One line without a newline, as many token and config files are.
  writeFileSync(victim, 'the user own file, no newline');
  return { dir, sessions, id, victim };
}
