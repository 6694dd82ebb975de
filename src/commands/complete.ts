import type { MachineDefinition } from '../engine/definition.js';
import { teamMajorIds } from '../team/team-settings.js';
import { COMMANDS, findCommand } from './catalog.js';

/** The result of Tab: the completed line (unchanged when ambiguous) and the candidates that matched. */
export interface Completion {
  line: string;
  candidates: string[];
}

function commonPrefix(words: string[]): string {
  if (words.length === 0) return '';
  let prefix = words[0]!;
  for (const w of words) while (!w.toLowerCase().startsWith(prefix.toLowerCase())) prefix = prefix.slice(0, -1);
  return prefix;
}

function finish(head: string, partial: string, options: string[]): Completion {
  const matches = options.filter((o) => o.toLowerCase().startsWith(partial.toLowerCase()));
  if (matches.length === 1) return { line: `${head}${matches[0]} `, candidates: matches };
  const prefix = commonPrefix(matches);
  return { line: `${head}${prefix.length > partial.length ? prefix : partial}`, candidates: matches };
}

/** Completes a command name, or the persona / major argument of the command being typed. */
export function complete(line: string, def: MachineDefinition): Completion {
  const match = /^(\s*)([!/])(\S*)$/.exec(line);
  if (match) {
    const [, space = '', sigil = '!', partial = ''] = match;
    return finish(
      `${space}${sigil}`,
      partial,
      COMMANDS.map((c) => c.name),
    );
  }
  const arg = /^(\s*[!/](\S+)\s+)(\S*)$/.exec(line);
  if (!arg) return { line, candidates: [] };
  const [, head = '', name = '', partial = ''] = arg;
  const spec = findCommand(name);
  if (spec?.arg === 'persona')
    return finish(
      head,
      partial,
      def.agents.map((a) => a.id),
    );
  if (spec?.arg === 'major') return finish(head, partial, teamMajorIds(def));
  return { line, candidates: [] };
}
