import type * as restate from '@restatedev/restate-sdk';
import { executeLine } from '../../commands/execute.js';
import { existing, parse, refuse, sendApply } from './handler-common.js';
import { lineMemory, LineCheck, lineUsage } from './line-check.js';
import { kindOf, type WorkerRuntime } from './object-session.js';
import { LineRequestSchema, type LineAnswer } from './records.js';
import { KEYS, readCore, readEvents } from './session-store.js';

/**
 * `line` (shared): a line exactly as typed in the terminal UI. Inspections are answered here from the stored
 * state; anything else goes to `apply`, after cancelling the invocation running the session when the line
 * would cut off its work (an interjection, `!handoff`, `!quit`), which aborts its calls in flight.
 */
export async function checkLine(ctx: restate.ObjectSharedContext, rt: WorkerRuntime, raw: unknown): Promise<LineAnswer> {
  const { text, live } = parse(LineRequestSchema, raw);
  const meta = await existing(ctx);
  const core = await readCore(ctx);
  if (!core) throw refuse(404, `no session "${ctx.key}"`);
  if (core.state.status === 'ended') throw refuse(409, `session ${ctx.key} has ended; it takes no more input`);
  const kind = await kindOf(ctx, rt, meta);
  const check = new LineCheck(kind.def, core.state, meta.model, () => readEvents(ctx, 0, core.lastSeq));
  const outcome = executeLine(text, { session: check, usage: () => lineUsage(core.usage, rt.prices, rt.model.free === true), memory: lineMemory(core.memory, rt.team.loaded.team, kind.def) });
  if (outcome.kind === 'output' && outcome.tone === 'error') throw refuse(400, outcome.lines.join(' '));
  if (outcome.kind === 'switch') throw refuse(400, 'workflows start with POST /v1/sessions {"workflow": …}');
  if (check.inputs.length > 0) {
    const running = await ctx.get<string>(KEYS.running);
    if (running && check.cutsOff()) ctx.invocation(running as restate.InvocationId).cancel();
    sendApply(ctx, { text, at: await ctx.date.now(), ...(live ? { live } : {}) });
  }
  if (outcome.kind === 'quit') return { kind: 'quit' };
  if (outcome.kind === 'later') {
    const lines = outcome.title === 'sessions' ? ['sessions on Restate are listed by GET /v1/sessions and troupe sessions --restate-url'] : await outcome.lines;
    return { kind: 'output', title: outcome.title, lines };
  }
  if (outcome.kind === 'output') return { kind: 'output', title: outcome.title, lines: outcome.lines };
  return { kind: 'none' };
}
