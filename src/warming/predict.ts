import { matchTriggers } from '../arbiter/triggers.js';
import type { AgentState, MachineDefinition } from '../engine/definition.js';
import type { AgentCall } from '../engine/moves.js';
import type { SessionState } from '../engine/session.js';
import { teamOf } from '../team/team-settings.js';
import { keywordsOf, names, stemsOf } from './keywords.js';
import type { TransitionCounts } from './transitions.js';

/** Seed 004's weights of the three signals: transition history, context keywords, dependencies. */
export const PREDICTION_WEIGHTS = { history: 0.4, context: 0.4, dependency: 0.2 } as const;
/** How many predictions are made (seed 004: the top 3). */
export const PREDICTIONS = 3;
/** This session's own transitions count this many times the learned ones (what this team does now matters most). */
export const OWN_WEIGHT = 3;

/** One predicted next persona: its confidence (0..1) and each signal behind it (0..1). */
export interface Prediction {
  persona: string;
  confidence: number;
  history: number;
  context: number;
  dependency: number;
}

/** What a prediction is made from: the definition, the state with the call in flight, and who followed whom before. */
export interface PredictInput {
  def: MachineDefinition;
  state: SessionState;
  call: AgentCall;
  /** This session's transitions so far. */
  own: TransitionCounts;
  /** Transitions learned from the team's stored sessions (null: none). */
  learned: TransitionCounts | null;
  /** What the current persona has said so far, while it answers (absent: nothing yet). */
  answer?: string;
}

/** A persona the policy will give the turn to whatever the current one says (a detour's or consultation's return, the next pipeline stage); undefined: none fixed, null: the user. */
function fixedNext(def: MachineDefinition, s: SessionState, call: AgentCall): string | null | undefined {
  const r = s.routing;
  if (!r) return undefined;
  if (call.inbox.kind === 'consult' && r.consultReturn !== null) return r.consultReturn === 'user' ? null : r.consultReturn;
  const routing = teamOf(def).routing[s.mode];
  if (routing.kind === 'pipeline') return routing.stages[r.pipelineIndex + 1]?.persona ?? null;
  const detour = r.detours[r.detours.length - 1];
  if (detour && detour.target === call.persona) return detour.returnTo;
  return undefined;
}

/** Share of the times `to` followed `from`, this session's counts weighing OWN_WEIGHT times the learned ones. */
function historyShare(input: PredictInput, from: string, to: string): number {
  const total = OWN_WEIGHT * input.own.total(from) + (input.learned?.total(from) ?? 0);
  if (total === 0) return 0;
  return (OWN_WEIGHT * input.own.count(from, to) + (input.learned?.count(from, to) ?? 0)) / total;
}

/** The text the current persona answers: its inbox's message (or a rework's reason). */
function inboxText(call: AgentCall): string {
  const inbox = call.inbox as { text?: unknown; reason?: unknown };
  return typeof inbox.text === 'string' ? inbox.text : typeof inbox.reason === 'string' ? inbox.reason : '';
}

/**
 * Context: 1 when the latest text names a persona or one of its trigger rules would fire; else 0.25 per
 * distinctive description word, up to 0.75. The latest text is the current persona's answer so far once
 * it has begun (what it says decides who is next), else the message it answers.
 */
function contextScores(input: PredictInput, self: AgentState): Map<string, number> {
  const { def, state, call } = input;
  const scores = new Map<string, number>();
  const latest = input.answer || inboxText(call);
  const lower = latest.toLowerCase();
  const stems = stemsOf(latest);
  for (const k of keywordsOf(def)) {
    if (k.id === self.id) continue;
    let hits = 0;
    for (const w of k.words) if (stems.has(w)) hits += 1;
    const score = names(lower, k) ? 1 : Math.min(0.75, 0.25 * hits);
    if (score > 0) scores.set(k.id, score);
  }
  const r = state.routing;
  const team = def.team;
  if (r && team) {
    // The texts the rules will read when the turn is routed: the window, ending with the answer once there is one.
    const texts = input.answer ? [...r.recentTexts, input.answer].slice(-team.arbiter.triggerWindow) : r.recentTexts;
    for (const p of matchTriggers(team.rules, { from: self.id, texts, turn: state.turn, lastFired: r.rulesFired, cooldown: team.arbiter.ruleCooldown })) scores.set(p.target, 1);
  }
  return scores;
}

/** Dependencies: 1 for whoever asked for the rework being done, 0.6 for whoever handed the work over, 0.5 for the major's lead, 0.3 for every persona a handoff list allows. */
function dependencyScores(input: PredictInput, self: AgentState): Map<string, number> {
  const { def, state, call } = input;
  const scores = new Map<string, number>();
  const raise = (id: string | undefined | null, score: number) => {
    if (id && id !== self.id && score > (scores.get(id) ?? 0)) scores.set(id, score);
  };
  const inbox = call.inbox as { kind: string; from?: unknown };
  if (inbox.kind === 'rework' && typeof inbox.from === 'string') raise(inbox.from, 1);
  const history = state.routing?.history ?? [];
  raise(history[history.length - 1], 0.6);
  raise(def.team?.majors.find((m) => m.id === self.major)?.lead, 0.5);
  for (const id of self.allowed ?? []) raise(id, 0.3);
  return scores;
}

/**
 * Predicts who speaks after the persona whose call is in flight, with seed 004's three signals: how often
 * each persona followed it (history, 0.4), whether the text it answers names a persona or arms one of its
 * trigger rules or uses its description's words (context, 0.4), and dependencies (0.2). When the policy
 * already fixes the next persona (a detour's or consultation's return, the next pipeline stage), that
 * persona has confidence 1. Pure: the same input gives the same predictions; the top PREDICTIONS, best
 * first (ties in roster order), none below zero confidence.
 */
export function predictNext(input: PredictInput): Prediction[] {
  const { def, state, call } = input;
  const self = def.agentIndex.get(call.persona);
  if (!self || !def.team) return [];
  const fixed = fixedNext(def, state, call);
  if (fixed !== undefined) return fixed === null || !def.agentIndex.has(fixed) ? [] : [{ persona: fixed, confidence: 1, history: historyShare(input, self.id, fixed), context: 0, dependency: 1 }];
  const context = contextScores(input, self);
  const dependency = dependencyScores(input, self);
  const out: Prediction[] = [];
  for (const a of def.agents) {
    if (a.id === self.id || (self.allowed && !self.allowed.has(a.id) && a.id !== state.routing?.history.at(-1))) continue;
    const signals = { history: historyShare(input, self.id, a.id), context: context.get(a.id) ?? 0, dependency: dependency.get(a.id) ?? 0 };
    const confidence = PREDICTION_WEIGHTS.history * signals.history + PREDICTION_WEIGHTS.context * signals.context + PREDICTION_WEIGHTS.dependency * signals.dependency;
    if (confidence > 0) out.push({ persona: a.id, confidence: Math.round(confidence * 1000) / 1000, ...signals });
  }
  // A stable sort keeps roster order among equals.
  return out.sort((x, y) => y.confidence - x.confidence).slice(0, PREDICTIONS);
}
