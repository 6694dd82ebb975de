import type * as restate from '@restatedev/restate-sdk';
import { executeLine } from '../../commands/execute.js';
import { event } from '../../engine/event-map.js';
import { resumeNote } from '../../session/resume-note.js';
import { parse, refuse } from './handler-common.js';
import { openObjectSession, type WorkerRuntime } from './object-session.js';
import { ApplyRequestSchema } from './records.js';
import { KEYS, readCore, readMeta, writeCore } from './session-store.js';
import { sendLearned } from './learning-object.js';
import { transitionTableOf } from '../../warming/transitions.js';

/**
 * `apply`: the one handler that runs a session. It opens the session (the kernel, with Restate's ports),
 * applies a line (none: only continues it), and drives the session's work until it waits for the user or
 * ends, writing events as it goes; a newer line that would cut off that work cancels it.
 */
export async function applyLine(ctx: restate.ObjectContext, rt: WorkerRuntime, raw: unknown): Promise<void> {
  const request = parse(ApplyRequestSchema, raw);
  const meta = await readMeta(ctx);
  const core = await readCore(ctx);
  if (!meta || !core) throw refuse(404, `no session "${ctx.key}"`);
  if (request.live !== undefined) core.live = request.live;
  if (core.state.status === 'ended' && request.text === undefined) return;
  const o = await openObjectSession(ctx, rt, meta, core, request.at);
  let detached = false;
  o.session.subscribe((e) => {
    if (e.type === 'session_detached') detached = true;
  });
  // A session let go of (`!quit`) is resumed as the embedded backend reopens one: noted, its turn in flight re-run.
  if (core.detached) {
    o.publish(event('note', { text: resumeNote(o.session.def, o.session.getSnapshot()) }));
    o.session.resume();
  }
  if (request.text !== undefined) executeLine(request.text, { session: o.session, usage: () => o.session.usage() });
  // What a cancelled invocation left in flight (and a new session's start) goes on, unless the line let go of it.
  if (!detached) o.session.resume();
  // From here a newer line may cancel this invocation (the only thing awaited from now on is the steps' race).
  ctx.set(KEYS.running, ctx.request().id);
  // Live events (a prediction, the last deltas) reach the serve process before the stored events after them are written.
  const end = await o.steps.drive(async () => {
    await rt.live.delivered(ctx.key);
    o.journal.flush();
  });
  if (end === 'cancelled') rt.log(`session ${ctx.key}: invocation cancelled by a new input; its calls in flight were aborted`);
  // Calls in flight at a cancellation are aborted and never applied: the next apply re-runs what is still wanted.
  o.effects.abortAll();
  o.steps.close();
  await rt.live.delivered(ctx.key);
  o.journal.flush();
  o.journal.flushState();
  await o.journal.close();
  const transitions = transitionTableOf(o.sources.transitions?.());
  writeCore(
    ctx,
    {
      state: o.journal.state,
      brief: core.brief,
      lastSeq: o.sources.lastSeq(),
      memory: o.sources.memory(),
      usage: o.sources.usage(),
      demo: o.demo?.spoken ?? null,
      detached,
      live: core.live,
      ...(transitions ? { transitions } : {}),
      ...(core.learned ? { learned: core.learned } : {}),
    },
    { withState: false },
  );
  ctx.clear(KEYS.running);
  // The team's sessions created after this invocation learn what it added.
  if (transitions && JSON.stringify(transitions) !== JSON.stringify(core.transitions ?? {})) sendLearned(ctx, o.session.def, ctx.key, transitions);
  await o.close();
}
