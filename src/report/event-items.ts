import type { TroupeEvent } from '../engine/event-map.js';
import { decisionLine, directiveTag } from './decisions.js';
import type { DisplayItem, DisplayNames, DisplayState, Mark, Tone } from './display-item.js';

// The one wording of every event (display-items.ts folds it; every view shows it).

const on = (branch: string | undefined) => (branch ? ` [${branch}]` : '');
function note(e: TroupeEvent, tone: Tone, text: string, extra: { mark?: Mark; persona?: string; who?: string; branch?: string } = {}): DisplayItem {
  return { kind: 'note', event: e.type, tone, text, ...extra };
}

/** Fields naming the persona an event is about (and its branch). */
function about(names: DisplayNames, persona: string, branch?: string): { who: string; persona: string; branch?: string } {
  return { who: names.name(persona), persona, ...(branch !== undefined ? { branch } : {}) };
}

// Items are written as literals whose first fields are their own, never `{ ...x, more }`: on Node 20 an object
// literal that starts with a spread and then adds keys the spread object lacks costs 1.5-3 µs (a cloned map
// that every added key leaves by a slow path), 20-50x the same literal written out; a spread later in the
// literal, or one that only overrides keys, is fast. The keys keep their order (the SSE bytes depend on it).

/** `about(...)` with a mark after it. */
function marked(a: { who: string; persona: string; branch?: string }, mark: Mark): { who: string; persona: string; branch?: string; mark: Mark } {
  return a.branch !== undefined ? { who: a.who, persona: a.persona, branch: a.branch, mark } : { who: a.who, persona: a.persona, mark };
}

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

/** A reason that repeats the error just shown in full, pointing to it instead ("… turn failed: the error above; …"). */
function pointToError(reason: string, state: DisplayState): string {
  return state.lastError && reason.includes(state.lastError) ? reason.replace(state.lastError, 'the error above') : reason;
}

/** The items of one event, given what earlier events left (`state`); `[]` for the silent ones. */
export function itemsOf(e: TroupeEvent, names: DisplayNames, state: DisplayState): DisplayItem[] {
  switch (e.type) {
    case 'state_entered':
    case 'major_entered':
    case 'major_exited':
    case 'agent_delta':
    case 'usage':
    case 'prediction':
      return [];
    case 'warming':
      // A warming request is background work: only one that failed is worth a line (its cost shows in !cost).
      return e.status === 'failed' ? [note(e, 'warn', `warming ${names.name(e.persona)}'s prompt failed: ${e.reason ?? 'no reason given'}`, about(names, e.persona))] : [];
    case 'session_started':
      return [
        {
          event: e.type,
          tone: 'info',
          kind: 'header',
          text: names.workflow ? `troupe · workflow ${names.title} · ${e.model}` : `troupe · ${e.team} · ${e.mode.toUpperCase()} · ${e.model}`,
          brief: e.brief,
          label: names.workflow ? 'Input' : 'Brief',
        },
      ];
    case 'user_input':
      // What the line is comes with it; sessions stored before it did are read by the old guess (the line after the start).
      return [{ event: e.type, tone: 'info', kind: 'user', who: 'You', text: e.text, brief: e.kind !== undefined ? e.kind === 'brief' : state.briefNext }];
    case 'command':
      return [{ event: e.type, tone: 'info', kind: 'command', who: 'You', text: `!${[e.name, ...e.args].join(' ')}` }];
    case 'agent_started': {
      const a = about(names, e.persona, e.branch);
      return [{ event: e.type, tone: 'info', kind: 'progress', ...a, text: `${a.who}${on(e.branch)} is answering…` }];
    }
    case 'agent_message': {
      const a = about(names, e.persona, e.branch);
      // A state that names no agent of its own (a debate's reviewers take turns in it) is told by who answered.
      const where = names.path(e.path);
      return [{ event: e.type, tone: 'info', kind: 'turn', ...a, turnId: e.turn_id, turn: e.turn, where: where.includes(a.who) ? where : `${where} · ${a.who}`, state: e.path, text: e.text }];
    }
    case 'agent_aborted':
      return [note(e, 'warn', `${names.name(e.persona)}${on(e.branch)}'s answer was cut off: ${e.reason}`, about(names, e.persona, e.branch))];
    case 'tool_call': {
      const a = about(names, e.persona, e.branch);
      const what = `${a.who}${on(e.branch)} ${e.tool}: ${e.summary}`;
      if (e.phase === 'started') return [{ event: e.type, tone: 'info', kind: 'progress', ...a, mark: '⚙', text: what }];
      return [note(e, e.ok ? 'info' : 'warn', `${what}${e.ok || !e.detail ? '' : ` — ${e.detail}`}`, marked(a, e.ok ? '⚙' : '✗'))];
    }
    case 'command_approval': {
      const a = about(names, e.persona, e.branch);
      if (e.phase === 'asked') return [note(e, 'warn', `${a.who}${on(e.branch)} wants to run: ${e.command} (in ${e.cwd}) — !allow or !deny`, marked(a, '⚠'))];
      return [note(e, e.phase === 'allowed' ? 'ok' : 'info', `${e.phase}: ${e.command}`, marked(a, e.phase === 'allowed' ? '✓' : '✗'))];
    }
    case 'fanout':
      return [note(e, 'info', `${e.state}: ${e.branches.length} branches at once (${e.branches.join(', ')}), join ${e.join}`, { mark: '⇉' })];
    case 'joined': {
      const failed = e.failed.length ? `, failed: ${e.failed.map((f) => `${f.branch} (${f.error})`).join('; ')}` : '';
      const going = e.outcome === 'continue';
      return [note(e, going ? 'ok' : 'error', `${e.state} joined: ${e.done.length} done${failed} — ${going ? 'going on' : 'the state fails'}`, { mark: '⇇' })];
    }
    case 'verdict': {
      // A debate after a revision numbers its rounds on from the debates before it in the state, as the reviewers count their turns.
      const round = (state.rounds[e.state] ?? 0) + e.round;
      return [
        note(
          e,
          e.agree ? 'ok' : 'warn',
          `${names.name(e.reviewer)} (round ${round}): ${e.agree ? 'agrees' : 'does not agree'}, ${e.approve ? 'approves' : 'wants changes'} — ${e.feedback}`,
          marked(about(names, e.reviewer), '⚖'),
        ),
      ];
    }
    case 'debate_ended': {
      const how = e.consensus ? 'consensus' : e.synthesised ? 'no consensus; the synthesiser wrote one' : 'no consensus';
      const before = state.rounds[e.state] ?? 0;
      const after = before > 0 ? `${e.rounds} more round(s), at round ${before + e.rounds}` : `${e.rounds} round(s)`;
      return [note(e, e.approve ? 'ok' : 'warn', `debate in ${e.state} over after ${after}: ${how}, ${e.approve ? 'approved' : 'changes requested'}`, { mark: '⚖' })];
    }
    case 'directive': {
      const a = about(names, e.persona);
      const decisions = (e.directive.key_decisions ?? []).map((k) => note(e, 'ok', `decision pinned: ${k}`, marked(a, '✔')));
      return [{ event: e.type, tone: 'info', kind: 'directive', ...a, mark: '↳', turnId: e.turn_id, state: e.path, transition: e.directive.transition, text: directiveTag(e.directive) }, ...decisions];
    }
    case 'directive_invalid':
      return [note(e, 'warn', `${names.name(e.persona)} gave no valid directive: ${e.error}${e.repairing ? ' (asking once more)' : ''}`, about(names, e.persona))];
    case 'arbitration':
      return e.decision.proposals.length > 0 ? [{ event: e.type, tone: 'info', kind: 'arbitration', from: e.from, decision: e.decision, text: decisionLine(e.decision, names.name) }] : [];
    case 'transition': {
      const label = e.kind === 'agent' ? (state.labels[e.from] ?? 'handoff') : e.kind.toUpperCase();
      return [
        {
          event: e.type,
          tone: 'info',
          kind: 'transition',
          from: e.from,
          to: e.to,
          label,
          reason: e.kind === 'agent' ? null : pointToError(e.reason, state),
          text: `${names.path(e.from)} -> ${names.path(e.to)} (${label})`,
        },
      ];
    }
    case 'approval': {
      if (e.by !== 'user') return [];
      const ok = e.status === 'APPROVED';
      return [note(e, ok ? 'ok' : 'warn', `${ok ? 'you approved' : 'you sent back'} ${names.name(e.of)}'s work${e.reason ? `: ${e.reason}` : ''}`, marked(about(names, e.of), ok ? '✓' : '↺'))];
    }
    case 'memory_compressed':
      return [note(e, 'info', `memory: ${e.turns_in} turn(s) summarised, ${e.tokens_before} -> ${e.tokens_after} tokens (${plural(e.summaries, 'summary', 'summaries')})`)];
    case 'memory_trimmed':
      return [note(e, 'info', `memory: prompt for ${names.name(e.persona)} trimmed to ${e.tokens_after}/${e.budget} tokens (dropped ${e.dropped.join(', ')})`, about(names, e.persona))];
    case 'awaiting_user':
      return [note(e, 'warn', `waiting for you: ${pointToError(e.reason, state)}`, { mark: '◂' })];
    case 'mode_changed':
      return [note(e, 'ok', `mode is now ${e.mode.toUpperCase()}`)];
    case 'retry':
      return [
        note(e, 'warn', `retry ${e.attempt} in ${(e.wait_ms / 1000).toFixed(1)} s${e.reason === state.lastRetry ? ' (same reason)' : `: ${e.reason}`}`, {
          mark: '↻',
          ...(e.persona ? about(names, e.persona) : {}),
        }),
      ];
    case 'note':
      return [note(e, 'info', e.text)];
    case 'error':
      return [note(e, 'error', `error: ${e.message} (${e.where})`)];
    case 'session_detached':
      // A run that lets go of a session waiting for you follows the ◂ line that says so, with the same reason:
      // worded again ("Session paused: waiting for you — ...") it said one fact twice, in two wordings.
      if (e.reason === 'awaiting_user') return [];
      return [note(e, 'info', `session paused: ${e.reason.replace(/_/g, ' ')}${e.detail ? ` — ${e.detail}` : ''}`)];
    case 'session_ended': {
      const ended = note(e, 'info', `session ended: ${e.reason}${e.detail ? ` — ${e.detail}` : ''}`);
      if (e.output === undefined) return [ended];
      const lines = (typeof e.output === 'string' ? e.output : (JSON.stringify(e.output, null, 2) ?? 'null')).split('\n');
      return [ended, { event: e.type, tone: 'info', kind: 'output', title: 'workflow output', lines, text: lines.join('\n') }];
    }
    default:
      return unknownEvent(e);
  }
}

// A new event name is a compile error here until it is given items or listed as silent.
function unknownEvent(e: never): DisplayItem[] {
  return [{ kind: 'note', event: (e as TroupeEvent).type, tone: 'info', text: (e as TroupeEvent).type }];
}
