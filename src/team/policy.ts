import type { Policy } from '../engine/definition.js';
import { agentCompleted, agentFailed } from './agent-turn.js';
import { trackTransition } from './moves.js';
import type { TeamRouting } from './state.js';
import * as user from './user-actions.js';

/** A fresh team routing state. */
export function initialTeamRouting(): TeamRouting {
  return {
    history: [],
    detours: [],
    consultReturn: null,
    consultPause: null,
    reworks: {},
    queue: [],
    rulesFired: {},
    lastDecision: null,
    pipelineIndex: 0,
    loop: null,
    recentTexts: [],
    approved: 0,
    sentBack: 0,
  };
}

/** Team routing: directive -> arbiter -> target, the rework stack, detours, approval gates and limits. */
export const teamPolicy: Policy = {
  initialState: () => ({ routing: initialTeamRouting() }),
  // Team code changes its routing state in place: each step works on a copy.
  draft: (s) => {
    if (s.routing) s.routing = { ...s.routing };
  },
  start: (ctx, brief) => user.start(ctx, brief),
  onTransition: trackTransition,
  onInput(ctx, input) {
    switch (input.type) {
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
      case 'start':
      case 'detach':
        // The core handles the lifecycle itself.
        break;
    }
  },
};
