import type { MachineDefinition } from './definition.js';
import type { Effect } from './effects.js';
import type { EngineInput } from './input-events.js';
import { STATE_VERSION, type Mode, type SessionState } from './session.js';
import { draft, emit, note, type StepContext } from './context.js';
import { event } from './event-map.js';

/** The result of one step: the next session state and the effects to execute. */
export interface StepResult {
  session: SessionState;
  effects: Effect[];
}

/** A fresh session of a definition, not yet started: it waits in the user state for its brief. */
export function initialState(def: MachineDefinition, options: { id: string; mode?: Mode }): SessionState {
  return {
    version: STATE_VERSION,
    id: options.id,
    definition: def.name,
    brief: '',
    mode: options.mode ?? 'fsm',
    status: 'idle',
    configuration: def.userPath ? [def.userPath] : [],
    active: null,
    turn: 0,
    turnBudget: def.limits.max_turns,
    callSeq: 0,
    inFlight: null,
    pending: null,
    awaiting: null,
    visits: {},
    endReason: null,
    ...def.policy.initialState(def),
  };
}

/** The brief arrived: the core announces the session, then the policy enters the first state. */
function begin(ctx: StepContext, brief: string, model: string): void {
  const { s, def } = ctx;
  if (s.status !== 'idle') {
    note(ctx, 'the session has already started');
    return;
  }
  emit(ctx, event('session_started', { brief, mode: s.mode, team: def.name, model, initial: def.entry }));
  s.brief = brief;
  def.policy.start(ctx, brief);
}

/**
 * The pure, synchronous core: one input in, the next state and its effects out. The core owns the
 * session's lifecycle (started, detached, ended); everything else is its definition's routing policy.
 */
export function step(def: MachineDefinition, session: SessionState, input: EngineInput): StepResult {
  if (session.status === 'ended' && input.type !== 'user_message') return { session, effects: [] };
  const ctx: StepContext = { def, s: draft(def, session), fx: [] };
  if ('command' in input && input.command) emit(ctx, event('command', input.command));
  switch (input.type) {
    case 'start':
      begin(ctx, input.brief, input.model ?? 'unknown model');
      break;
    case 'user_message':
      if (ctx.s.status === 'idle') begin(ctx, input.text, 'unknown model');
      else def.policy.onInput(ctx, input);
      break;
    case 'detach': {
      // A session that never started is not kept (the store removes it), whatever the caller meant to say.
      const detail = ctx.s.status === 'idle' ? 'nothing was started, so the session is not kept' : input.detail;
      emit(ctx, event('session_detached', detail ? { reason: input.reason, detail } : { reason: input.reason }));
      ctx.fx.push({ type: 'detach', reason: input.reason });
      break;
    }
    default:
      def.policy.onInput(ctx, input);
  }
  return { session: ctx.s, effects: ctx.fx };
}
