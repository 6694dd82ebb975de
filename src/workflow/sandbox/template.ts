/** A piece of a message template: literal text, or a placeholder's path (`{common_data.task}` -> ['common_data', 'task']). */
export type TemplatePart = string | { path: string[]; raw: string };

// `{name}`, `{a.b.c}`, `{list.0}`: anything else in braces (JSON, code) is literal text.
const PLACEHOLDER = /\{\s*([A-Za-z_$][\w$]*(?:\.[\w$]+)*)\s*\}/g;

/** Splits a seed 001 message template (`"Please help with: {input.user_request}"`) into text and placeholders. */
export function parseTemplate(source: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let at = 0;
  for (const match of source.matchAll(PLACEHOLDER)) {
    const index = match.index;
    if (index > at) parts.push(source.slice(at, index));
    parts.push({ path: match[1]!.split('.'), raw: match[0] });
    at = index + match[0].length;
  }
  if (at < source.length) parts.push(source.slice(at));
  return parts;
}
