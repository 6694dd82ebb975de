import type { DirectiveResult } from '../directive/parse.js';
import type { Mode } from './definition.js';

/** Events the engine consumes: model results from the runtime and user actions. */
export type EngineInput =
  | { type: 'start'; brief: string }
  | { type: 'agent_completed'; turnId: string; text: string; directive: DirectiveResult }
  | { type: 'agent_failed'; turnId: string; reason: string }
  | { type: 'user_message'; text: string }
  | { type: 'user_approve' }
  | { type: 'user_rework'; reason: string }
  | { type: 'user_handoff'; target: string }
  | { type: 'user_switch_major'; major: string }
  | { type: 'user_call_agent'; target: string; message: string }
  | { type: 'user_continue' }
  | { type: 'user_mode'; mode: Mode }
  | { type: 'user_quit' }
  | { type: 'budget_exceeded'; reason: string; turnId?: string };
