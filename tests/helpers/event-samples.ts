import type { TroupeEvent, TroupeEventMap, TroupeEventName } from '../../src/engine/event-map.js';
import { EVENT_PAYLOADS } from '../../src/kinds/schemas.js';

const decision = {
  winner: {
    target: 'ceo',
    source: 'user' as const,
    criteria: { urgency: 1, dependency: 1, user_intent: 1 },
    reason: 'asked',
    proposer: 'creative_partner',
    targetId: 'ceo',
    score: 1,
    status: 'winner' as const,
  },
  proposals: [
    {
      target: 'ceo',
      source: 'user' as const,
      criteria: { urgency: 1, dependency: 1, user_intent: 1 },
      reason: 'asked',
      proposer: 'creative_partner',
      targetId: 'ceo',
      score: 1,
      status: 'winner' as const,
    },
    {
      target: 'bob',
      source: 'agent' as const,
      criteria: { urgency: 0.5, dependency: 0.5, user_intent: 0.5 },
      reason: '',
      proposer: 'creative_partner',
      targetId: null,
      score: null,
      status: 'dropped' as const,
      dropReason: 'unknown persona',
    },
  ],
  why: 'the user asked',
  weights: { urgency: 0.3, dependency: 0.4, user_intent: 0.3 },
};

/**
 * One payload of every event the engine knows, on the studio team's ids. Typed as a map over every event
 * name: a new event in EVENT_PAYLOADS does not compile here until it has a sample.
 */
export const EVENT_SAMPLES: { [K in TroupeEventName]: TroupeEventMap[K] } = {
  session_started: { brief: 'a lighthouse game', mode: 'fsm', team: 'V7 Studio', model: 'test-model', initial: 'CREATIVE.creative_partner' },
  state_entered: { path: 'STRATEGIC.ceo', persona: 'ceo', major: 'STRATEGIC' },
  major_entered: { major: 'STRATEGIC' },
  major_exited: { major: 'CREATIVE' },
  agent_started: { turn_id: 't1', path: 'CREATIVE.creative_partner', persona: 'creative_partner', attempt: 1, model: 'test-model', inbox: 'brief', branch: 'a' },
  agent_delta: { turn_id: 't1', persona: 'creative_partner', text: 'Hel' },
  prediction: { turn_id: 't1', persona: 'creative_partner', on: 'answer', predictions: [{ persona: 'ceo', confidence: 0.62, history: 0.5, context: 0.8, dependency: 0.5 }] },
  warming: {
    turn_id: 't1',
    persona: 'ceo',
    model: 'test-model',
    status: 'failed',
    reason: 'server error 500',
    prompt_tokens: 0,
    completion_tokens: 0,
    cost: null,
    total_requests: 1,
    total_prompt_tokens: 0,
    total_cost: null,
  },
  agent_message: { turn_id: 't1', path: 'CREATIVE.creative_partner', persona: 'creative_partner', text: 'A keeper.\nA light.', turn: 1 },
  agent_aborted: { turn_id: 't1', persona: 'creative_partner', reason: 'user interjected', branch: 'a' },
  tool_call: { turn_id: 't1', persona: 'lead_engineer', tool: 'write_file', summary: 'src/light.ts (12 lines)', phase: 'finished', ok: false, detail: 'disk full', branch: 'b' },
  command_approval: { id: 'c1', phase: 'asked', command: 'npm test', cwd: '/w/b', persona: 'lead_engineer', branch: 'b' },
  fanout: { state: 'implement', branches: ['a', 'b'], join: 'all' },
  joined: { state: 'implement', done: ['a'], failed: [{ branch: 'b', error: 'server error 500' }], outcome: 'continue' },
  verdict: { state: 'debate', round: 2, reviewer: 'ceo', agree: false, approve: false, feedback: 'the tide loop is thin' },
  debate_ended: { state: 'debate', rounds: 3, consensus: false, approve: true, synthesised: true },
  directive: {
    turn_id: 't1',
    path: 'CREATIVE.creative_partner',
    persona: 'creative_partner',
    directive: { transition: 'REQUEST_REWORK', rework_reason: 'too dark', key_decisions: ['No combat'] },
    source: 'tool',
  },
  directive_invalid: { turn_id: 't1', persona: 'creative_partner', error: 'no tool call', attempt: 1, repairing: true },
  arbitration: { from: 'CREATIVE.creative_partner', decision },
  transition: { from: 'CREATIVE.creative_partner', to: 'STRATEGIC.ceo', reason: 'the user asked', kind: 'user' },
  approval: { turn: 3, by: 'user', of: 'creative_partner', status: 'REQUEST_REWORK', reason: 'too expensive' },
  memory_compressed: { turns_in: 4, tokens_before: 900, tokens_after: 300, summaries: 1 },
  memory_trimmed: { persona: 'ceo', dropped: ['summaries'], tokens_before: 5000, tokens_after: 3900, budget: 4000 },
  awaiting_user: { reason: 'CEO declared the work complete', code: 'complete' },
  user_input: { text: 'no combat please' },
  command: { name: 'handoff', args: ['CEO'] },
  mode_changed: { mode: 'simple' },
  usage: { persona: 'ceo', model: 'test-model', prompt_tokens: 100, completion_tokens: 20, cost: null, total_tokens: 120, total_cost: null },
  retry: { turn_id: 't1', persona: 'ceo', attempt: 2, wait_ms: 1500, reason: 'rate limited' },
  note: { text: 'session resumed at turn 3' },
  error: { message: 'the server closed the stream', where: 'model' },
  session_detached: { reason: 'user_left', detail: 'the session is saved' },
  session_ended: { reason: 'workflow done', output: { answer: 42 } },
};

/** The sample of an event name, stamped as the bus stamps it (seq and time given). */
export function sampleEvent<K extends TroupeEventName>(type: K, seq = 1): TroupeEvent {
  const payload = EVENT_PAYLOADS[type].parse(EVENT_SAMPLES[type]);
  return { type, ...payload, session_id: 's', seq, at: Date.UTC(2026, 0, 1) } as TroupeEvent;
}
