// Persistence cost per step as a session grows: the journal append each step pays (synchronous, before the
// step's effects run) and each checkpoint of the session document — its part on the event loop (serialising
// and redacting it) and its write off the loop (journal fsync, document write, flush, rename) — measured on the
// real write path of a lowdb store at 10, 1,000 and 10,000 turns, with a distinct key decision every turn; and
// what in the document grows.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ChatModel, ChatRequest, ChatResponse } from '../src/llm/chat-model.js';
import { DIRECTIVE_TOOL_NAME } from '../src/directive/schema.js';
import { openTeam } from '../src/team/open-team.js';
import { openSession } from '../src/session/open-session.js';
import { processRedactor } from '../src/llm/redact.js';
import { LowdbStore } from '../src/store/lowdb-store.js';
import type { Checkpoint } from '../src/store/session-file.js';
import type { SessionHandle } from '../src/store/store.js';
import { median, ms, QUICK } from './stats.js';
import { handleWith, WrappedStore } from '../tests/helpers/wrapped-store.js';

const MARKS = (process.env.MARKS ?? (QUICK ? '10,1000' : '10,1000,10000')).split(',').map(Number);
const WINDOW = 10;
const ROOT = resolve(import.meta.dirname, '..');
const screen = processRedactor().screen!;

/** Hands off round the roster with ~600 characters per turn and a decision of its own every turn; answers once the event loop has turned (as a call over the network does), summaries like a fast model. */
class InstantModel implements ChatModel {
  readonly label = 'bench model';
  private calls = 0;
  constructor(private readonly lastTurn: number) {}

  async generate(request: ChatRequest): Promise<ChatResponse> {
    await new Promise((r) => setImmediate(r));
    if (request.meta.purpose === 'summary') {
      const summary = { decisions: [`scope held at call ${this.calls}`], discussions: ['chapters weighed'], pending: [] };
      return { text: JSON.stringify(summary), toolCalls: [], usage: { promptTokens: 600, completionTokens: 40 }, finishReason: 'stop', model: 'bench' };
    }
    this.calls += 1;
    const allowed = request.meta.handoffTo ?? [];
    const next = allowed[(this.calls * 7) % Math.max(1, allowed.length)];
    const text = `Turn ${this.calls} from ${request.meta.personaName}: ${'we weigh scope, cost and feel of the lighthouse chapters; '.repeat(10)}`;
    const directive =
      this.calls >= this.lastTurn
        ? { transition: 'RESPOND_TO_USER' }
        : { transition: 'HANDOFF_TO_AGENT', next_agent: next, urgency: 0.6, dependency: 0.7, user_intent: 0.5, key_decisions: [`decision ${this.calls}: chapter ${this.calls} keeps its own lamp`] };
    return { text, toolCalls: [{ name: DIRECTIVE_TOOL_NAME, arguments: JSON.stringify(directive) }], usage: { promptTokens: 900, completionTokens: 150 }, finishReason: 'tool_calls', model: 'bench' };
  }
}

/** One checkpoint: at which turn, its part on the event loop, how long its write took, and (the first past each mark) its parts' sizes and what serialising and screening it cost. */
interface Timed {
  turn: number;
  loop: number;
  write: number;
  parts?: Record<string, number>;
  stringify?: number;
  screen?: number;
}

/** Median ms of `fn` over a few runs. */
function timeOf(fn: () => unknown): number {
  const runs: number[] = [];
  for (let i = 0; i < 7; i++) {
    const t = performance.now();
    fn();
    runs.push(performance.now() - t);
  }
  return median(runs);
}

/** Serialised sizes of the parts of a checkpoint that could grow. */
function partsOf(c: Checkpoint): Record<string, number> {
  const size = (v: unknown) => JSON.stringify(v ?? null).length;
  const memory = (c.memory ?? {}) as Record<string, unknown>;
  const snapshot = c.snapshot as unknown as Record<string, unknown>;
  const routing = (snapshot.routing ?? {}) as Record<string, unknown>;
  return {
    document: size(c),
    'snapshot.routing': size(routing),
    ...Object.fromEntries(Object.keys(routing).map((k) => [`  routing.${k}`, size(routing[k])])),
    'snapshot (other)': size(c.snapshot) - size(routing),
    'memory.pinned': size(memory.pinned),
    'memory.summaries': size(memory.summaries),
    'memory.raw': size(memory.raw),
    usage: size(c.usage),
  };
}

/** A store that times what the session's writes cost: appends (synchronous), and each checkpoint's part on the loop and its write. */
class TimedStore extends WrappedStore {
  readonly appends: { turn: number; ms: number }[] = [];
  readonly checkpoints: Timed[] = [];
  turn = 0;
  protected override wrap(h: SessionHandle): SessionHandle {
    const measured = new Set<number>();
    const firstPast = (turn: number) => {
      const mark = MARKS.find((m) => turn >= m && !measured.has(m) && MARKS.every((o) => o <= m || turn < o));
      if (mark !== undefined) measured.add(mark);
      return mark !== undefined;
    };
    return handleWith(h, {
      append: (record) => {
        const t = performance.now();
        h.append(record);
        this.appends.push({ turn: this.turn, ms: performance.now() - t });
      },
      checkpoint: (checkpoint, meta, options) => {
        const t = performance.now();
        const written = h.checkpoint(checkpoint, meta, options);
        const row: Timed = { turn: this.turn, loop: performance.now() - t, write: 0 };
        if (firstPast(this.turn)) {
          row.parts = partsOf(checkpoint);
          const text = JSON.stringify(checkpoint);
          row.stringify = timeOf(() => JSON.stringify(checkpoint));
          row.screen = timeOf(() => screen.test(text));
        }
        this.checkpoints.push(row);
        return written.then(() => void (row.write = performance.now() - t));
      },
    });
  }
}

export default async function bench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-bench-'));
  try {
    const last = MARKS.at(-1)! + WINDOW * 3;
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
    const nearest = (mark: number) =>
      [...store.checkpoints]
        .filter((c) => c.turn > 0 && c.turn < last)
        .sort((x, y) => Math.abs(x.turn - mark) - Math.abs(y.turn - mark))
        .slice(0, 3);
    process.stdout.write(`persistence per step, lowdb store, instant model (answers once the event loop turns), memory on, a distinct key decision every turn:\n`);
    for (const mark of MARKS) {
      const a = near(store.appends, mark);
      const c = nearest(mark);
      process.stdout.write(
        `  turn ${String(mark).padStart(6)}  append ${ms(median(a)).padStart(9)} (${a.length} steps)  checkpoint on the event loop ${ms(median(c.map((r) => r.loop))).padStart(9)}, its write off the loop ${ms(median(c.map((r) => r.write))).padStart(9)} (median of the ${c.length} nearest, turns ${c.map((r) => r.turn).join(', ')})\n`,
      );
    }
    const sampled = store.checkpoints.filter((r) => r.parts);
    if (sampled.length > 1) {
      process.stdout.write(`  what the checkpoint holds, serialised bytes at turns ${sampled.map((r) => r.turn).join(' / ')} (what grows is the checkpoint's cost):\n`);
      for (const key of Object.keys(sampled.at(-1)!.parts!)) process.stdout.write(`    ${key.padEnd(26)} ${sampled.map((r) => String(r.parts![key] ?? 0).padStart(9)).join(' ')}\n`);
      process.stdout.write(
        `    serialising it (JSON.stringify) ${sampled.map((r) => ms(r.stringify!)).join(' / ')}; the redaction screen over that text ${sampled.map((r) => ms(r.screen!)).join(' / ')} (target: the screen cheaper than the serialisation)\n`,
      );
    }
    const all = (rows: { ms: number }[]) => rows.map((r) => r.ms);
    const mean = (xs: number[]) => xs.reduce((n, x) => n + x, 0) / Math.max(1, xs.length);
    const loops = store.checkpoints.map((r) => r.loop);
    process.stdout.write(
      `  whole run: append median ${ms(median(all(store.appends)))}, mean ${ms(mean(all(store.appends)))} (${store.appends.length} appends: serialise, redact, seal, write); checkpoint on the loop median ${ms(median(loops))}, mean ${ms(mean(loops))}, ${ms((mean(loops) * store.checkpoints.length) / Math.max(1, store.appends.length))} per line amortised\n`,
    );
    const journal = statSync(join(dir, 'sessions', 'bench.jsonl')).size;
    const doc = statSync(join(dir, 'sessions', 'bench.json')).size;
    process.stdout.write(
      `  at ${last} turns: journal ${(journal / 1024 / 1024).toFixed(1)} MiB (append-only), document ${(doc / 1024).toFixed(0)} KiB; ${store.appends.length} appends, ${store.checkpoints.length} checkpoints; whole run ${(wall / 1000).toFixed(1)} s (${ms(wall / last)} per turn)\n`,
    );
    process.stdout.write(`  target: a checkpoint costs the same at 10 and 10,000 turns; <= 2 ms per step at 10,000 turns; fsync off the event loop (the journal before the document)\n`);
  } finally {
    if (!process.env.KEEP) rmSync(dir, { recursive: true, force: true });
    else process.stdout.write(`kept ${dir}\n`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await bench();
