import type { MachineDefinition } from './definition.js';
import type { Effect } from './effects.js';
import type { EngineInput } from './input-events.js';
import type { SessionState } from './session.js';
import { draft, type StepContext } from './context.js';
import { agentCompleted, agentFailed } from './agent-turn.js';
import * as user from './user-actions.js';

/** The result of one step: the next session state and the effects to execute. */
export interface StepResult {
  session: SessionState;
  effects: Effect[];
}

/** The pure, synchronous core: one input event in, the next state and its effects out. */
export function step(def: MachineDefinition, session: SessionState, input: EngineInput): StepResult {
  const ctx: StepContext = { def, s: draft(session), fx: [] };
  if (ctx.s.status === 'ended' && input.type !== 'user_message') return { session, effects: [] };
  switch (input.type) {
    case 'start':
      user.start(ctx, input.brief);
      break;
    case 'agent_completed':
      agentCompleted(ctx, input.turnId, input.text, input.directive);
      break;
    case 'agent_failed':
      agentFailed(ctx, input.turnId, input.reason);
      break;
    case 'user_message':
      user.userMessage(ctx, input.text);
      break;
    case 'user_approve':
      user.approve(ctx);
      break;
    case 'user_rework':
      user.rework(ctx, input.reason);
      break;
    case 'user_handoff':
      user.handoff(ctx, input.target);
      break;
    case 'user_switch_major':
      user.switchMajor(ctx, input.major);
      break;
    case 'user_call_agent':
      user.callAgent(ctx, input.target, input.message);
      break;
    case 'user_continue':
      user.resume(ctx);
      break;
    case 'user_mode':
      user.switchMode(ctx, input.mode);
      break;
    case 'user_quit':
      user.quit(ctx);
      break;
    case 'budget_exceeded':
      user.budgetExceeded(ctx, input.reason, input.turnId);
      break;
  }
  return { session: ctx.s, effects: ctx.fx };
}
