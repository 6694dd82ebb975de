import { resolvePersona } from '../arbiter/resolve.js';
import type { MachineDefinition } from '../engine/definition.js';
import type { EngineInput } from '../engine/input-events.js';
import { teamMajorIds } from '../team/team-settings.js';
import { COMMANDS, findCommand } from './catalog.js';
import { didYouMean } from '../config/suggest.js';

/** Commands answered by the UI (or the piped runner) from what it has seen, not by the engine. */
export type InspectName = 'status' | 'history' | 'memory' | 'cost' | 'sessions' | 'help' | 'branches' | 'debate';

/** A typed user line: plain text, an engine action, an inspection, quit, a workflow request, or an error to show. */
export type ParsedLine =
  | { kind: 'empty' }
  | { kind: 'text'; text: string }
  | { kind: 'engine'; name: string; args: string[]; input: EngineInput }
  | { kind: 'inspect'; name: InspectName }
  | { kind: 'quit' }
  | { kind: 'workflow'; name: string; input: string }
  | { kind: 'approval'; allow: boolean }
  | { kind: 'rewind'; step: number | null }
  | { kind: 'error'; message: string };

/** True when a line is a command (starts with `!` or `/`); agent text is never passed here. */
export function isCommand(line: string): boolean {
  return /^[!/]/.test(line.trimStart());
}

function knownPersonas(def: MachineDefinition): string {
  return def.agents.map((a) => `${a.id} (${a.name})`).join(', ');
}

/** Splits `rest` into a persona name and the remainder, trying the longest prefix that names a persona ("Game Designer hi"). */
function personaPrefix(def: MachineDefinition, rest: string): { id: string; remainder: string } | null {
  const words = rest.split(/\s+/).filter(Boolean);
  for (let n = words.length; n >= 1; n -= 1) {
    const persona = resolvePersona(def.agents, words.slice(0, n).join(' '));
    if (persona) return { id: persona.id, remainder: words.slice(n).join(' ') };
  }
  return null;
}

/** Parses one input line against a team: commands with `!` or `/`, anything else is plain text. */
export function parseLine(line: string, def: MachineDefinition): ParsedLine {
  const trimmed = line.trim();
  if (trimmed === '') return { kind: 'empty' };
  if (!isCommand(trimmed)) return { kind: 'text', text: trimmed };
  const body = trimmed.slice(1).trim();
  const [word = '', ...restWords] = body.split(/\s+/);
  const rest = restWords.join(' ');
  const spec = findCommand(word);
  if (!spec) {
    const typed = trimmed.split(/\s+/)[0]!;
    const near = didYouMean(
      word,
      COMMANDS.flatMap((c) => [c.name, ...(c.aliases ?? [])]).filter((n) => n.length > 1),
    );
    return { kind: 'error', message: `unknown command "${typed}"${near ? ` — did you mean ${typed[0]}${near}?` : ''} — type !help for the list` };
  }
  const args = restWords;
  const engine = (input: EngineInput): ParsedLine => ({ kind: 'engine', name: spec.name, args, input });
  // Another kind's command names nothing of this definition: it goes on as typed, and this kind's policy says so.
  const foreign = spec.steers !== undefined && spec.steers !== def.kind;
  switch (spec.name) {
    case 'approve':
      return engine({ type: 'user_approve' });
    case 'rework':
      return engine({ type: 'user_rework', reason: rest });
    case 'continue':
      return engine({ type: 'user_continue' });
    case 'simple':
    case 'fsm':
      return engine({ type: 'user_mode', mode: spec.name });
    case 'handoff': {
      if (foreign) return engine({ type: 'user_handoff', target: rest });
      if (rest === '') return { kind: 'error', message: `usage: !handoff <persona> — known: ${knownPersonas(def)}` };
      const persona = resolvePersona(def.agents, rest);
      if (!persona) return { kind: 'error', message: `unknown persona "${rest}"; known: ${knownPersonas(def)}` };
      return engine({ type: 'user_handoff', target: persona.id });
    }
    case 'call_agent': {
      if (foreign) return engine({ type: 'user_call_agent', target: restWords[0] ?? '', message: restWords.slice(1).join(' ') });
      if (rest === '') return { kind: 'error', message: `usage: !call_agent <persona> [message] — known: ${knownPersonas(def)}` };
      const found = personaPrefix(def, rest);
      if (!found) return { kind: 'error', message: `unknown persona "${restWords[0]}"; known: ${knownPersonas(def)}` };
      return engine({ type: 'user_call_agent', target: found.id, message: found.remainder });
    }
    case 'switch_to': {
      if (foreign) return engine({ type: 'user_switch_major', major: rest });
      const majors = teamMajorIds(def);
      const major = majors.find((m) => m.toLowerCase() === rest.toLowerCase());
      if (!major) return { kind: 'error', message: `${rest === '' ? 'usage: !switch_to <MAJOR>' : `unknown major "${rest}"`}; known: ${majors.join(', ')}` };
      return engine({ type: 'user_switch_major', major });
    }
    case 'quit':
      return { kind: 'quit' };
    case 'allow':
    case 'deny':
      return { kind: 'approval', allow: spec.name === 'allow' };
    case 'rewind': {
      if (rest === '') return { kind: 'rewind', step: null };
      if (!/^\d{1,9}$/.test(rest)) return { kind: 'error', message: `usage: !rewind [step] — a step number as !rewind lists them, got "${rest}"` };
      return { kind: 'rewind', step: Number(rest) };
    }
    case 'workflow':
      if (rest === '') return { kind: 'workflow', name: '', input: '' };
      return { kind: 'workflow', name: restWords[0]!, input: unquoted(restWords.slice(1).join(' ')) };
    default:
      return { kind: 'inspect', name: spec.name as InspectName };
  }
}

/** `/workflow X "…"`: the input without the quotes around it (seed 000 writes it quoted). */
function unquoted(text: string): string {
  const t = text.trim();
  return t.length >= 2 && (t[0] === '"' || t[0] === "'") && t.at(-1) === t[0] ? t.slice(1, -1) : t;
}
