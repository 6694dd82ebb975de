import { awaitUser, type StepContext } from '../../engine/context.js';
import type { MachineDefinition } from '../../engine/definition.js';
import { MAX_TURNS } from '../../config/max-turns.js';
import { rootPlan, runOf } from './access.js';
import type { LoopRound } from './state.js';
import type { EvaluationResult } from '../../engine/evaluation.js';
import { answerBytes, commonDataProblem, sizeOf } from './data-size.js';

// Every loop of a workflow is bounded: agent turns count against max_turns, and state entries and the data
// workflow code returns count against a round, so a cycle of script-only states pauses instead of filling
// the journal. A round starts with the run, with !continue and with the user's input.

/** State entries per agent turn of max_turns when the workflow sets no max_state_entries. */
export const ENTRIES_PER_TURN = 10;
/** Data workflow code may return in one round (every evaluation's result is journaled whole). */
export const ROUND_DATA_BYTES = 64 * 1024 * 1024;
/** States kept to name the loop with. */
const TRAIL = 12;

/** State entries a round may take: the workflow's max_state_entries, else ten per turn of max_turns (at most MAX_TURNS). */
export function stateEntryLimit(def: MachineDefinition): number {
  return def.workflow?.maxStateEntries ?? Math.min(MAX_TURNS, ENTRIES_PER_TURN * def.limits.max_turns);
}

function roundOf(ctx: StepContext): LoopRound {
  return runOf(ctx).loop ?? { entries: 0, bytes: 0, turn: ctx.s.turn, trail: [] };
}

function setRound(ctx: StepContext, loop: LoopRound): void {
  ctx.s.workflow = { ...runOf(ctx), loop };
}

/**
 * A new round: the user acted (!continue, or input), so the loop guard counts afresh from here. `entered`:
 * the run goes on in a state it already entered (paused on entry), the round's first entry.
 */
export function newRound(ctx: StepContext, entered = false): void {
  setRound(ctx, { entries: entered ? 1 : 0, bytes: 0, turn: ctx.s.turn, trail: roundOf(ctx).trail });
}

/** Counts the bytes an evaluation's result holds (each is written to the journal whole). */
export function countData(ctx: StepContext, bytes: number): void {
  const loop = roundOf(ctx);
  setRound(ctx, { ...loop, bytes: loop.bytes + bytes });
}

/** Counts what an evaluation's answer holds (what it chained too); common_data past its cap makes it a failure. */
export function sizeChecked(ctx: StepContext, answer: EvaluationResult): EvaluationResult {
  if (!answer.ok) {
    countData(ctx, answer.error.length);
    return answer;
  }
  const { held, rest } = answerBytes(answer as Record<string, unknown>);
  countData(ctx, held + rest);
  const problem = commonDataProblem(held);
  return problem ? { ok: false, error: problem } : answer;
}

/**
 * Counts the entry into a state (already made the current one). False when the round is spent: the
 * session then waits for the user with one line naming the loop, and !continue runs the state.
 */
export function countEntry(ctx: StepContext, state: string): boolean {
  const before = roundOf(ctx);
  const loop = { ...before, entries: before.entries + 1, trail: [...before.trail, state].slice(-TRAIL) };
  setRound(ctx, loop);
  const limit = stateEntryLimit(ctx.def);
  if (loop.entries <= limit && loop.bytes <= ROUND_DATA_BYTES) return true;
  const turns = ctx.s.turn - loop.turn;
  const agents = turns === 0 ? 'without an agent turn' : `with ${turns} agent turn${turns === 1 ? '' : 's'}`;
  const name = rootPlan(ctx).name;
  if (loop.entries > limit) {
    awaitUser(ctx, 'limit', `${name}: ${loopText(loop.trail)} … ${limit} state entries ${agents} (max_state_entries ${limit}); !continue to go on`);
    return false;
  }
  if (loop.bytes > ROUND_DATA_BYTES) {
    awaitUser(
      ctx,
      'limit',
      `${name}: ${loopText(loop.trail)} … workflow code returned ${sizeOf(loop.bytes)} of data in ${loop.entries - 1} state entries ${agents} (at most ${sizeOf(ROUND_DATA_BYTES)} between pauses); !continue to go on`,
    );
    return false;
  }
  return true;
}

/** The states that repeated, as "check → fix → check": the shortest cycle at the end of the trail seen twice, else the last states. */
export function loopText(trail: readonly string[]): string {
  for (let period = 1; period * 2 <= trail.length; period++) {
    const last = trail.slice(-period);
    const before = trail.slice(-2 * period, -period);
    if (last.every((s, i) => s === before[i])) return trail.slice(-(period + 1)).join(' → ');
  }
  return trail.slice(-4).join(' → ');
}
