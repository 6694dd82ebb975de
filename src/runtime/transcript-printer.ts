import type { MachineDefinition } from '../engine/definition.js';
import type { TroupeEvent } from '../engine/event-map.js';
import type { TroupeBus } from './bus.js';
import { displayName, formatPath } from './format.js';

/** Prints a readable transcript of a session to a writer (stdout by default). */
export function attachTranscriptPrinter(bus: TroupeBus, def: MachineDefinition, write: (line: string) => void): void {
  const lastDirective = new Map<string, string>();
  const onEvent = (e: TroupeEvent) => {
    switch (e.type) {
      case 'session_started':
        write(`troupe · ${e.team} · ${e.mode.toUpperCase()} · ${e.model}`);
        write(`Brief: ${e.brief}`);
        write('');
        break;
      case 'agent_message':
        write(`▸ ${formatPath(def, e.path)} (turn ${e.turn})`);
        for (const line of e.text.split('\n')) write(`  ${line}`);
        break;
      case 'directive': {
        const d = e.directive;
        lastDirective.set(e.persona, d.transition);
        const parts: string[] = [d.transition];
        if (d.next_agent) parts.push(`→ ${d.next_agent}`);
        if (d.rework_reason) parts.push(`rework: ${d.rework_reason}`);
        write(`  ⤷ ${parts.join(' ')}`);
        for (const k of d.key_decisions ?? []) write(`  ✔ decision: ${k}`);
        break;
      }
      case 'directive_invalid':
        write(`  ! ${displayName(def, e.persona)} gave no valid directive: ${e.error}${e.repairing ? ' (asking once more)' : ''}`);
        break;
      case 'arbitration': {
        const shown = e.decision.proposals.map((p) => {
          const who = p.targetId ? displayName(def, p.targetId) : p.target;
          if (p.status === 'dropped') return `${who} dropped (${p.dropReason})`;
          const score = p.score === null ? '' : ` ${p.score.toFixed(2)}`;
          return `${who}${score} [${p.source}]${p.status === 'winner' ? ' ✓' : ''}`;
        });
        if (shown.length > 0) write(`  arbiter: ${shown.join(', ')} — ${e.decision.why}`);
        break;
      }
      case 'transition': {
        const from = e.from.split('.')[1] ?? '';
        const label = e.kind === 'agent' ? (lastDirective.get(from) ?? 'handoff') : e.kind.toUpperCase();
        write(`${formatPath(def, e.from)} -> ${formatPath(def, e.to)} (${label})`);
        if (e.kind !== 'agent') write(`  reason: ${e.reason}`);
        write('');
        break;
      }
      case 'approval':
        if (e.by === 'user') write(`  ${e.status === 'APPROVED' ? '✓ you approved' : '↺ you sent back'} ${displayName(def, e.of)}'s work${e.reason ? `: ${e.reason}` : ''}`);
        break;
      case 'awaiting_user':
        write(`⏸ waiting for you: ${e.reason}`);
        break;
      case 'note':
        write(`  note: ${e.text}`);
        break;
      case 'error':
        write(`  error: ${e.message} (${e.where})`);
        break;
      case 'memory_compressed':
        write(`  memory: ${e.turns_in} turn(s) summarised, ${e.tokens_before} -> ${e.tokens_after} tokens (${e.summaries} summaries)`);
        break;
      case 'memory_trimmed':
        write(`  memory: prompt for ${displayName(def, e.persona)} trimmed to ${e.tokens_after}/${e.budget} tokens (dropped ${e.dropped.join(', ')})`);
        break;
      case 'mode_changed':
        write(`mode: ${e.mode.toUpperCase()}`);
        break;
      case 'session_ended':
        write(`Session ended: ${e.reason}${e.detail ? ` — ${e.detail}` : ''}`);
        break;
      default:
        break;
    }
  };
  bus.on('*', onEvent);
}

/** Prints every event as one JSON line. */
export function attachJsonPrinter(bus: TroupeBus, write: (line: string) => void): void {
  bus.on('*', (e) => write(JSON.stringify(e)));
}
