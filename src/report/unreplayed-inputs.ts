import type { JournalRecord } from '../store/session-file.js';

type Raw = Record<string, unknown>;

const oneLine = (text: string, max = 200) => {
  const line = text.replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
};

/** What an input says, in a line: the user's words or the brief, an agent's words and its directive, a reason; else its kind. */
function inputLine(input: Raw): string {
  const parts: string[] = [String(input.type).replace(/_/g, ' ')];
  for (const key of ['brief', 'text', 'reason', 'detail'] as const) if (typeof input[key] === 'string' && input[key]) parts.push(oneLine(input[key] as string));
  const directive = (input.directive as Raw | undefined)?.directive as Raw | undefined;
  if (directive && typeof directive.transition === 'string') parts.push(`directive ${directive.transition}${typeof directive.next_agent === 'string' ? ` → ${directive.next_agent}` : ''}`);
  const command = input.command as { name?: unknown; args?: unknown } | undefined;
  if (command && typeof command.name === 'string') parts.push(`!${[command.name, ...(Array.isArray(command.args) ? command.args : [])].join(' ')}`);
  return parts.join(' — ');
}

/**
 * The steps a schema-8 journal holds whose derived events could not be replayed (see ReadSession.replayGap), told
 * by what their inputs say: one line per step from the journal line the gap starts at, nothing made up.
 */
export function unreplayedInputLines(records: readonly JournalRecord[]): string[] {
  const lines: string[] = [];
  for (const r of records) if (r.derived && r.input) lines.push(`[step ${r.n}] ${inputLine(r.input as unknown as Raw)}`);
  return lines;
}
