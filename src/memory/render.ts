import type { Pinned, RawTurn, Summary } from './memory-state.js';

/** Maps a persona id (or "user") to a display name. */
export type NameOf = (id: string) => string;

/** The default name lookup: ids as they are, "user" as "User". */
export const idAsName: NameOf = (id) => (id === 'user' ? 'User' : id);

/** One pinned item as a line; the decision or reason text is kept verbatim. The prompt leaves turn numbers out (list order is chronological). */
export function pinnedLine(p: Pinned, nameOf: NameOf, withTurn = false): string {
  const by = nameOf(p.by);
  const of = p.of ? `${nameOf(p.of)}'s work` : 'the brief';
  const when = withTurn ? `[turn ${p.turn}] ` : '';
  switch (p.kind) {
    case 'decision':
      return `- ${when}${by}: ${p.text}`;
    case 'approval':
      return `- ${when}${by} approved ${of}`;
    case 'rejection':
      return `- ${when}${by} sent ${of} back for rework: ${p.text}`;
  }
}

/** A summary as a compact block. */
export function summaryText(s: Summary): string {
  const range = s.first === s.last ? `turn ${s.first}` : `turns ${s.first}-${s.last}`;
  const lines = [`### ${range}`];
  if (s.decisions.length) lines.push(`Decisions: ${s.decisions.join('; ')}`);
  if (s.discussions.length) lines.push(`Discussed: ${s.discussions.join('; ')}`);
  if (s.pending.length) lines.push(`Open: ${s.pending.join('; ')}`);
  return lines.join('\n');
}

/** Header of the summaries message. */
export const SUMMARIES_HEADER = '## Earlier in this session (summaries, oldest first)';

/** A raw turn as one line for the summariser: turn, author, type, text. */
export function turnLine(t: RawTurn, nameOf: NameOf): string {
  return `- [turn ${t.turn}] ${nameOf(t.author)} (${t.type}): ${oneLine(t.text)}`;
}

// Whitespace oneLine changes: any but a single space between non-spaces.
const ODD_SPACE = /[^\S ]| {2}|^ | $/;

/** The text on one line: whitespace runs as one space, none at either end (text already so is returned as it is, without a regex replace). */
export function oneLine(text: string): string {
  return ODD_SPACE.test(text) ? text.replace(/\s+/g, ' ').trim() : text;
}

/** A short label for a trimmed item, as memory_trimmed reports it. */
export function trimLabel(item: { kind: 'summary'; s: Summary } | { kind: 'turn'; t: RawTurn }, nameOf: NameOf): string {
  if (item.kind === 'summary') return `summary of turns ${item.s.first}-${item.s.last}`;
  return `turn ${item.t.turn} (${nameOf(item.t.author)})`;
}
