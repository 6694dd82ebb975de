// Persistence cost per step as a session grows: the time the session spends storing each step (one
// journal append, synchronous, before the step's effects run) and each checkpoint of the small session
// document, measured on the real write path of a lowdb store at 10, 100, 1,000 and 10,000 turns.
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ChatModel, ChatRequest, ChatResponse } from '../src/llm/chat-model.js';
import { DIRECTIVE_TOOL_NAME } from '../src/directive/schema.js';
import { redactedJson, redactorFrom } from '../src/llm/redact.js';
import { openTeam } from '../src/team/open-team.js';
import { openSession } from '../src/session/open-session.js';
import { LowdbStore } from '../src/store/lowdb-store.js';
import type { OpenedSession, ReadSession, SessionHandle, Store, StoredEntry } from '../src/store/store.js';
import type { SessionDocument } from '../src/store/session-file.js';
import { median, ms, QUICK } from './stats.js';

const MARKS = (process.env.MARKS ?? (QUICK ? '10,100,1000' : '10,100,1000,10000')).split(',').map(Number);
const WINDOW = 10;
const ROOT = resolve(import.meta.dirname, '..');

/** Hands off round the roster with ~600 characters per turn and a distinct key decision every turn, answering at once; summaries answered like a fast model. */
class InstantModel implements ChatModel {
  readonly label = 'bench model';
  private calls = 0;
  constructor(private readonly lastTurn: number) {}

  async generate(request: ChatRequest): Promise<ChatResponse> {
    if (request.meta.purpose === 'summary') {
      const summary = { decisions: ['scope held'], discussions: ['chapters weighed'], pending: [] };
      return { text: JSON.stringify(summary), toolCalls: [], usage: { promptTokens: 600, completionTokens: 40 }, finishReason: 'stop', model: 'bench' };
    }
    this.calls += 1;
    const allowed = request.meta.handoffTo ?? [];
    const next = allowed[(this.calls * 7) % Math.max(1, allowed.length)];
    const text = `Turn ${this.calls} from ${request.meta.personaName}: ${'we weigh scope, cost and feel of the lighthouse chapters; '.repeat(10)}`;
    const directive = this.calls >= this.lastTurn ? { transition: 'RESPOND_TO_USER' } : { transition: 'HANDOFF_TO_AGENT', next_agent: next, urgency: 0.6, dependency: 0.7, user_intent: 0.5, key_decisions: [`decision ${this.calls}: lamp ${this.calls} keeps its own colour`] };
    return { text, toolCalls: [{ name: DIRECTIVE_TOOL_NAME, arguments: JSON.stringify(directive) }], usage: { promptTokens: 900, completionTokens: 150 }, finishReason: 'tool_calls', model: 'bench' };
  }
}

/** A store that times what the session's writes cost (appends and checkpoints are both synchronous). */
class TimedStore implements Store {
  readonly appends: { turn: number; ms: number }[] = [];
  readonly checkpoints: { turn: number; ms: number; bytes: number }[] = [];
  turn = 0;
  constructor(private readonly inner: Store) {}
  async create(doc: SessionDocument): Promise<SessionHandle> {
    const h = await this.inner.create(doc);
    const timed: SessionHandle = {
      id: h.id,
      location: h.location,
      get doc() {
        return h.doc;
      },
      append: (record) => {
        const t = performance.now();
        h.append(record);
        this.appends.push({ turn: this.turn, ms: performance.now() - t });
      },
      checkpoint: (checkpoint, meta, options) => {
        // What the step pays: serialising, redacting and writing the document (temp file, then rename).
        const t = performance.now();
        h.checkpoint(checkpoint, meta, options);
        const spent = performance.now() - t;
        this.checkpoints.push({ turn: this.turn, ms: spent, bytes: statSync(h.location).size });
      },
      close: () => h.close(),
    };
    return timed;
  }
  open(id: string): Promise<OpenedSession> {
    return this.inner.open(id);
  }
  read(id: string): Promise<ReadSession> {
    return this.inner.read(id);
  }
  list(): Promise<StoredEntry[]> {
    return this.inner.list();
  }
  ids(): Promise<string[]> {
    return this.inner.ids();
  }
}

/** The redaction screen against the serialisation it guards, on the final session document (and on one 8x as large). */
function screenCost(file: string): void {
  const doc = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  const redactor = redactorFrom(process.env);
  const time = (f: () => unknown) => {
    f();
    const runs: number[] = [];
    for (let i = 0; i < 15; i++) {
      const t = performance.now();
      f();
      runs.push(performance.now() - t);
    }
    return median(runs);
  };
  for (const [label, value] of [['the document', doc], ['8 copies of it', Array.from({ length: 8 }, () => doc)]] as const) {
    const text = JSON.stringify(value);
    const stringify = time(() => JSON.stringify(value));
    const screen = time(() => redactor.screen!.test(text));
    const whole = time(() => redactedJson(value, redactor));
    process.stdout.write(`  ${label} (${(text.length / 1024).toFixed(0)} KiB): JSON.stringify ${ms(stringify)}, redaction screen ${ms(screen)} (${(screen / stringify).toFixed(2)}x; target < 1x), redactedJson ${ms(whole)}\n`);
  }
}

export default async function bench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-bench-'));
  try {
    const last = MARKS.at(-1)! + WINDOW;
    const team = openTeam(ROOT, { maxTurns: 1_000_000 }, { TROUPE_MODEL: 'bench' });
    team.def.limits = { ...team.def.limits, ping_pong: 1_000_000, max_reworks_per_pair: 1_000_000 };
    const store = new TimedStore(new LowdbStore(dir));
    const session = await openSession({ team, teamDir: ROOT, model: new InstantModel(last), store, id: 'bench', env: {} });
    session.subscribe((e) => {
      if (e.type === 'agent_message') store.turn = e.turn;
    });
    const t0 = performance.now();
    session.start('A lighthouse keeper game');
    await session.settled();
    const wall = performance.now() - t0;
    await session.stop();
    const near = (rows: { turn: number; ms: number }[], mark: number) => rows.filter((r) => r.turn >= mark && r.turn < mark + WINDOW).map((r) => r.ms);
    // Checkpoints are a second or 256 journal lines apart: the three nearest each mark.
    const closest = <T extends { turn: number }>(rows: T[], mark: number) => [...rows].sort((x, y) => Math.abs(x.turn - mark) - Math.abs(y.turn - mark)).slice(0, 3);
    const nearest = (rows: { turn: number; ms: number }[], mark: number) => closest(rows, mark).map((r) => r.ms);
    const every = store.appends.length / Math.max(1, store.checkpoints.length);
    const amortised = store.checkpoints.reduce((n, c) => n + c.ms, 0) / Math.max(1, store.appends.length);
    process.stdout.write(`persistence per step, lowdb store (journal append per step + checkpoint of the session document), instant model with a distinct decision every turn, memory on:\n`);
    for (const mark of MARKS) {
      const a = near(store.appends, mark);
      const c = nearest(store.checkpoints, mark);
      const bytes = closest(store.checkpoints, mark).at(0)?.bytes ?? 0;
      process.stdout.write(`  turn ${String(mark).padStart(6)}  append ${ms(median(a)).padStart(9)} (${a.length} steps)  checkpoint ${ms(median(c)).padStart(9)} (median of the ${c.length} nearest; serialise + write + rename)  document ${(bytes / 1024).toFixed(0).padStart(4)} KiB
`);
    }
    const all = (rows: { ms: number }[]) => rows.map((r) => r.ms);
    const mean = (xs: number[]) => xs.reduce((n, x) => n + x, 0) / Math.max(1, xs.length);
    process.stdout.write(`  whole run: append median ${ms(median(all(store.appends)))}, mean ${ms(mean(all(store.appends)))} (${store.appends.length} appends: serialise, redact, seal, write); checkpoint median ${ms(median(all(store.checkpoints)))}, mean ${ms(mean(all(store.checkpoints)))} (journal fsync, document write + flush + rename)\n`);
    process.stdout.write(`  a checkpoint every ${every.toFixed(0)} journal lines on this instant model (at most one a second, or every 256 lines): ${ms(amortised)} per line amortised\n`);
    const first = median(nearest(store.checkpoints, MARKS[0]!));
    const lastMark = median(nearest(store.checkpoints, MARKS.at(-1)!));
    process.stdout.write(`  checkpoint at turn ${MARKS.at(-1)} ÷ at turn ${MARKS[0]}: ${(lastMark / first).toFixed(2)}x (target: the same cost, ~1x; with pins unbounded it measured 5.75x, a 1,137 KiB document at 10,000 turns; fsync dominates a small document's checkpoint)\n`);
    screenCost(join(dir, 'sessions', 'bench.json'));
    const journal = statSync(join(dir, 'sessions', 'bench.jsonl')).size;
    const doc = statSync(join(dir, 'sessions', 'bench.json')).size;
    process.stdout.write(`  at ${last} turns: journal ${(journal / 1024 / 1024).toFixed(1)} MiB (append-only), document ${(doc / 1024).toFixed(0)} KiB (rewritten at checkpoints); ${store.appends.length} appends, ${store.checkpoints.length} checkpoints; whole run ${(wall / 1000).toFixed(1)} s (${ms(wall / last)} per turn)\n`);
    process.stdout.write(`  target: <= 2 ms per step at 10,000 turns; fsync at checkpoints only (the journal before the document)\n`);
  } finally {
    if (!process.env.KEEP) rmSync(dir, { recursive: true, force: true });
    else process.stdout.write(`kept ${dir}\n`);
  }
}
