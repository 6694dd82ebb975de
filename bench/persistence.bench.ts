// Persistence cost per transition as a session grows: the time to write the session file (serialise the
// whole document, redact, write a temp file, rename) at 10, 100 and 1,000 turns, and the file size.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { ChatModel, ChatRequest, ChatResponse } from '../src/llm/chat-model.js';
import { DIRECTIVE_TOOL_NAME } from '../src/directive/schema.js';
import { openTeam } from '../src/runtime/open-team.js';
import { LowdbStore } from '../src/store/lowdb-store.js';
import { redactorFrom } from '../src/llm/redact.js';
import { createStoredSession } from '../src/store/stored-session.js';
import { median, ms } from './stats.js';

const CHECKPOINTS = [10, 100, 1000];
const SAMPLES = 21;
const ROOT = resolve(import.meta.dirname, '..');

/** Hands off round the roster with ~600 characters per turn, pausing at each checkpoint until released. */
class PausingModel implements ChatModel {
  readonly label = 'bench model';
  private calls = 0;
  reached: (turn: number) => Promise<void> = async () => undefined;

  async generate(request: ChatRequest): Promise<ChatResponse> {
    // The rolling memory's summary calls get a short valid summary, as a fast model would give.
    if (request.meta.purpose === 'summary') {
      const summary = { decisions: ['scope held'], discussions: ['chapters weighed'], pending: [] };
      return { text: JSON.stringify(summary), toolCalls: [], usage: { promptTokens: 600, completionTokens: 40 }, finishReason: 'stop', model: 'bench' };
    }
    this.calls += 1;
    if (CHECKPOINTS.includes(this.calls - 1)) await this.reached(this.calls - 1);
    const allowed = request.meta.handoffTo ?? [];
    const next = allowed[(this.calls * 7) % Math.max(1, allowed.length)];
    const text = `Turn ${this.calls} from ${request.meta.personaName}: ${'we weigh scope, cost and feel of the lighthouse chapters; '.repeat(10)}`;
    const directive = { transition: 'HANDOFF_TO_AGENT', next_agent: next, urgency: 0.6, dependency: 0.7, user_intent: 0.5, key_decisions: [`decision ${this.calls}`] };
    return { text, toolCalls: [{ name: DIRECTIVE_TOOL_NAME, arguments: JSON.stringify(directive) }], usage: { promptTokens: 900, completionTokens: 150 }, finishReason: 'tool_calls', model: 'bench' };
  }
}

export default async function bench(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'troupe-bench-'));
  try {
    const team = openTeam(ROOT, { maxTurns: 1_000_000 }, { TROUPE_MODEL: 'bench' });
    team.def.limits = { ...team.def.limits, ping_pong: 1_000_000, max_reworks_per_pair: 1_000_000 };
    const model = new PausingModel();
    const store = new LowdbStore(dir);
    const stored = await createStoredSession({ store, team, teamDir: ROOT, model, mode: 'fsm', sessionId: 'bench' });
    const redact = redactorFrom();
    const rows: string[] = [];
    let done!: () => void;
    const finished = new Promise<void>((r) => (done = r));
    model.reached = async (turn) => {
      await stored.recorder.flush();
      const write: number[] = [];
      const serialise: number[] = [];
      for (let i = 0; i < SAMPLES; i++) {
        let t = performance.now();
        await stored.recorder.flush();
        write.push(performance.now() - t);
        t = performance.now();
        redact(JSON.stringify(stored.handle.data));
        serialise.push(performance.now() - t);
      }
      const size = statSync(join(dir, 'sessions', 'bench.json')).size;
      const events = stored.handle.data.events.length;
      rows.push(`  ${String(turn).padStart(5)} turns  write ${ms(median(write)).padStart(9)}  (serialise+redact ${ms(median(serialise)).padStart(9)})  file ${(size / 1024).toFixed(0).padStart(6)} KiB  ${events} events`);
      if (turn === CHECKPOINTS.at(-1)) {
        stored.runner.dispatch({ type: 'user_quit' });
        done();
      }
    };
    stored.runner.start('A lighthouse keeper game');
    await finished;
    await stored.runner.settled();
    await stored.close();
    process.stdout.write(`persistence cost per transition (median of ${SAMPLES} writes of the whole session file, lowdb temp+rename):\n${rows.join('\n')}\n`);
    const size = statSync(join(dir, 'sessions', 'bench.json')).size;
    process.stdout.write(`  session file at 1,000 turns: ${(size / 1024 / 1024).toFixed(2)} MiB (${size} bytes, compact JSON, no deltas)\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
