import type { MachineDefinition } from '../engine/definition.js';
import type { TroupeEvent } from '../engine/event-map.js';
import { decisionLine } from './decisions.js';
import { agentAt, displayName, formatPath } from './names.js';
import { terminalSafeJson } from './terminal-safe.js';

/** Turns events into the lines of a readable transcript; keeps what a line needs from earlier events. */
export type EventLines = (e: TroupeEvent) => string[];

/** A transcript formatter for one session: feed it the events in order, print the lines it returns. */
export function eventLines(def: MachineDefinition): EventLines {
  const lastDirective = new Map<string, string>();
  const name = (id: string) => displayName(def, id);
  let briefShown = false;
  return (e) => {
    switch (e.type) {
      case 'session_started':
        briefShown = true;
        return def.kind === 'workflow'
          ? [`troupe · workflow ${def.name} · ${e.model}`, `Input: ${e.brief}`, '']
          : [`troupe · ${e.team} · ${e.mode.toUpperCase()} · ${e.model}`, `Brief: ${e.brief}`, ''];
      case 'user_input':
        // The brief is the first thing the user types; session_started already showed it.
        if (briefShown) {
          briefShown = false;
          return [];
        }
        return [`› ${e.text}`];
      case 'command':
        return [`› !${[e.name, ...e.args].join(' ')}`];
      case 'agent_message':
        return [`▸ ${formatPath(def, e.path)} (turn ${e.turn})`, ...e.text.split('\n').map((line) => `  ${line}`)];
      case 'directive': {
        const d = e.directive;
        lastDirective.set(e.persona, d.transition);
        const parts: string[] = [d.transition];
        if (d.next_agent) parts.push(`→ ${d.next_agent}`);
        if (d.rework_reason) parts.push(`rework: ${d.rework_reason}`);
        return [`  ⤷ ${parts.join(' ')}`, ...(d.key_decisions ?? []).map((k) => `  ✔ decision: ${k}`)];
      }
      case 'directive_invalid':
        return [`  ! ${name(e.persona)} gave no valid directive: ${e.error}${e.repairing ? ' (asking once more)' : ''}`];
      case 'arbitration':
        return e.decision.proposals.length > 0 ? [`  arbiter: ${decisionLine(e.decision, name)}`] : [];
      case 'transition': {
        const from = agentAt(def, e.from) ?? '';
        const label = e.kind === 'agent' ? (lastDirective.get(from) ?? 'handoff') : e.kind.toUpperCase();
        return [`${formatPath(def, e.from)} -> ${formatPath(def, e.to)} (${label})`, ...(e.kind !== 'agent' ? [`  reason: ${e.reason}`] : []), ''];
      }
      case 'approval':
        return e.by === 'user' ? [`  ${e.status === 'APPROVED' ? '✓ you approved' : '↺ you sent back'} ${name(e.of)}'s work${e.reason ? `: ${e.reason}` : ''}`] : [];
      case 'awaiting_user':
        return [`⏸ waiting for you: ${e.reason}`];
      case 'note':
        return [`  note: ${e.text}`];
      case 'error':
        return [`  error: ${e.message} (${e.where})`];
      case 'retry':
        return [`  retry ${e.attempt} in ${Math.round(e.wait_ms)} ms: ${e.reason}`];
      case 'memory_compressed':
        return [`  memory: ${e.turns_in} turn(s) summarised, ${e.tokens_before} -> ${e.tokens_after} tokens (${e.summaries} summaries)`];
      case 'memory_trimmed':
        return [`  memory: prompt for ${name(e.persona)} trimmed to ${e.tokens_after}/${e.budget} tokens (dropped ${e.dropped.join(', ')})`];
      case 'mode_changed':
        return [`mode: ${e.mode.toUpperCase()}`];
      case 'session_detached':
        return [`Session paused: ${e.reason === 'awaiting_user' ? 'waiting for you' : e.reason.replace(/_/g, ' ')}${e.detail ? ` — ${e.detail}` : ''}`];
      case 'session_ended':
        return [`Session ended: ${e.reason}${e.detail ? ` — ${e.detail}` : ''}`, ...(e.output !== undefined ? outputLines(e.output) : [])];
      case 'fanout':
        return [`⇉ ${e.state}: ${e.branches.length} branches at once (${e.branches.join(', ')}), join ${e.join}`];
      case 'joined':
        return [`⇇ ${e.state} joined: ${e.done.length} done${e.failed.length ? `, failed: ${e.failed.map((f) => `${f.branch} (${f.error})`).join('; ')}` : ''} — ${e.outcome === 'continue' ? 'going on' : 'the state fails'}`];
      case 'tool_call':
        return e.phase === 'finished' ? [`  ${e.ok ? '⚙' : '✗'} ${name(e.persona)}${e.branch ? ` [${e.branch}]` : ''} ${e.tool}: ${e.summary}${e.ok || !e.detail ? '' : ` — ${e.detail}`}`] : [];
      case 'command_approval':
        return [e.phase === 'asked' ? `  ⚠ ${name(e.persona)} wants to run: ${e.command} — !allow or !deny` : `  ${e.phase}: ${e.command}`];
      case 'verdict':
        return [`  ⚖ ${name(e.reviewer)} (round ${e.round}): ${e.agree ? 'agrees' : 'does not agree'}, ${e.approve ? 'approves' : 'wants changes'} — ${e.feedback}`];
      case 'debate_ended':
        return [`  ⚖ debate in ${e.state} over after ${e.rounds} round(s): ${e.consensus ? 'consensus' : e.synthesised ? 'no consensus; the synthesiser wrote one' : 'no consensus'}, ${e.approve ? 'approved' : 'changes requested'}`];
      default:
        return [];
    }
  };
}

/** A workflow's output, as transcript lines (text as it is, anything else as indented JSON). */
function outputLines(output: unknown): string[] {
  const text = typeof output === 'string' ? output : JSON.stringify(output, null, 2);
  return ['Output:', ...(text ?? 'null').split('\n').map((line) => `  ${line}`)];
}

/** An event as one JSON line (the `--json` stream and SSE `data:`): the time printed as ISO 8601. */
export function eventJson(e: TroupeEvent): string {
  return terminalSafeJson(JSON.stringify({ ...e, at: new Date(e.at).toISOString() }));
}
