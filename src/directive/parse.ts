import { DirectiveSchema, DIRECTIVE_TOOL_NAME, type Directive } from './schema.js';

/** What a model returned for a persona turn, as the directive parser sees it. */
export interface ModelTurnOutput {
  text: string;
  toolCalls: { name: string; arguments: string }[];
}

/** A directive parse: the directive, or the reason it could not be read. */
export type DirectiveResult = { ok: true; directive: Directive; source: 'tool' | 'text' } | { ok: false; error: string };

/** The end index of the balanced object starting at `start`, or -1 (braces inside strings ignored). */
function balancedEnd(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  let escaped = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (escaped) escaped = false;
      else if (ch === '\\') escaped = true;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === '{') depth++;
    else if (ch === '}' && --depth === 0) return i;
  }
  return -1;
}

/** Finds the last JSON object in free text (fenced or bare); a stray unmatched `{` in the prose does not hide it. */
export function extractJsonObject(text: string): unknown {
  const candidates: string[] = [];
  for (const m of text.matchAll(/```(?:json)?\s*([\s\S]*?)```/g)) if (m[1]) candidates.push(m[1]);
  for (let i = text.indexOf('{'); i >= 0; ) {
    const end = balancedEnd(text, i);
    if (end >= 0) candidates.push(text.slice(i, end + 1));
    i = text.indexOf('{', end >= 0 ? end + 1 : i + 1);
  }
  for (let i = candidates.length - 1; i >= 0; i--) {
    try {
      const value: unknown = JSON.parse(candidates[i]!.trim());
      if (value && typeof value === 'object' && !Array.isArray(value)) return value;
    } catch {
      // not JSON; try the previous candidate
    }
  }
  return undefined;
}

function describe(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  return error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`).join('; ');
}

function validate(value: unknown, source: 'tool' | 'text'): DirectiveResult {
  const parsed = DirectiveSchema.safeParse(value);
  if (parsed.success) return { ok: true, directive: parsed.data, source };
  return { ok: false, error: describe(parsed.error) };
}

/** Reads the directive from the tool call, else from a JSON object in the text. Never throws. */
export function parseDirective(output: ModelTurnOutput): DirectiveResult {
  const call = [...output.toolCalls].reverse().find((c) => c.name === DIRECTIVE_TOOL_NAME);
  if (call) {
    let args: unknown;
    try {
      args = JSON.parse(call.arguments === '' ? '{}' : call.arguments);
    } catch (error) {
      return { ok: false, error: `${DIRECTIVE_TOOL_NAME} arguments are not valid JSON (${(error as Error).message})` };
    }
    return validate(args, 'tool');
  }
  const fromText = extractJsonObject(output.text);
  if (fromText !== undefined && typeof fromText === 'object' && fromText !== null && 'transition' in fromText) {
    return validate(fromText, 'text');
  }
  if (output.text.trim() === '' && output.toolCalls.length === 0) return { ok: false, error: 'the response was empty' };
  return { ok: false, error: `no ${DIRECTIVE_TOOL_NAME} call and no JSON directive object in the text` };
}

/** Removes a JSON directive object that a tool-less model appended to its message. */
export function stripDirectiveJson(text: string): string {
  return text
    .replace(/```(?:json)?\s*\{[\s\S]*?"transition"[\s\S]*?\}\s*```/g, '')
    .replace(/\{[^{}]*"transition"\s*:[\s\S]*\}\s*$/m, '')
    .trim();
}

/** The message sent back for the single repair round. */
export function repairPrompt(error: string): string {
  return [
    `Your last turn did not include a valid ${DIRECTIVE_TOOL_NAME}: ${error}.`,
    `Do not repeat your message. Call ${DIRECTIVE_TOOL_NAME} now with a valid directive`,
    '(or, if you cannot call tools, reply with only the JSON object).',
  ].join(' ');
}
