import { DirectiveSchema, DIRECTIVE_TOOL_NAME, type DirectiveResult } from './schema.js';
import { jsonCandidates, type JsonSpan } from './json-scan.js';

/** What a model returned for a persona turn, as the directive parser sees it. */
export interface ModelTurnOutput {
  text: string;
  toolCalls: { name: string; arguments: string }[];
}

export type { DirectiveResult };

/** A JSON object found in free text, with where it lies. */
export interface FoundJson {
  value: Record<string, unknown>;
  span: JsonSpan;
}

/** The last JSON object in free text (fenced or bare) that `accept` takes; linear in the text. */
export function findJsonObject(text: string, accept: (value: Record<string, unknown>) => boolean = () => true): FoundJson | undefined {
  const candidates = jsonCandidates(text);
  for (let i = candidates.length - 1; i >= 0; i--) {
    const span = candidates[i]!;
    try {
      const value: unknown = JSON.parse(text.slice(span.start, span.end).trim());
      if (value && typeof value === 'object' && !Array.isArray(value) && accept(value as Record<string, unknown>)) return { value: value as Record<string, unknown>, span };
    } catch {
      // not JSON; try the previous candidate
    }
  }
  return undefined;
}

/** Finds the last JSON object in free text (fenced or bare); a stray unmatched `{` in the prose does not hide it. */
export function extractJsonObject(text: string): unknown {
  return findJsonObject(text)?.value;
}

const hasTransition = (value: Record<string, unknown>) => 'transition' in value;

/** A JSON.parse failure in words, with the text around where it failed (or its end, when it stopped early). */
export function jsonErrorDetail(raw: string, error: unknown): string {
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
  const at = /position (\d+)/.exec(message);
  const where = at ? Number(at[1]) : raw.length;
  const from = Math.max(0, where - 40);
  const excerpt = `${from > 0 ? '…' : ''}${raw.slice(from, where + 20)}${where + 20 < raw.length ? '…' : ''}`.replace(/\s+/g, ' ');
  return `${message}; ${at ? 'near' : 'it ends with'} ${JSON.stringify(excerpt)}`;
}

function describe(error: { issues: { path: PropertyKey[]; message: string }[] }): string {
  return error.issues.map((i) => `${i.path.map(String).join('.') || '(root)'}: ${i.message}`).join('; ');
}

function validate(value: unknown, source: 'tool' | 'text'): DirectiveResult {
  const parsed = DirectiveSchema.safeParse(value);
  if (parsed.success) return { ok: true, directive: parsed.data, source };
  return { ok: false, error: describe(parsed.error) };
}

/** Why a directive-looking JSON object in the text does not parse, or null when the text holds none. */
function brokenTextDirective(text: string): string | null {
  const key = text.lastIndexOf('"transition"');
  if (key < 0) return null;
  const start = text.lastIndexOf('{', key);
  if (start < 0) return null;
  const raw = text.slice(start).replace(/\s*```\s*$/, '');
  try {
    JSON.parse(raw);
    return null;
  } catch (error) {
    return `the directive JSON in the text is not valid (${jsonErrorDetail(raw, error)})`;
  }
}

/** Reads the directive from the tool call, else from a JSON object in the text. Never throws. */
export function parseDirective(output: ModelTurnOutput): DirectiveResult {
  const call = [...output.toolCalls].reverse().find((c) => c.name === DIRECTIVE_TOOL_NAME);
  if (call) {
    let args: unknown;
    try {
      args = JSON.parse(call.arguments === '' ? '{}' : call.arguments);
    } catch (error) {
      return { ok: false, error: `${DIRECTIVE_TOOL_NAME} arguments are not valid JSON (${jsonErrorDetail(call.arguments, error)})` };
    }
    return validate(args, 'tool');
  }
  const fromText = findJsonObject(output.text, hasTransition);
  if (fromText) return validate(fromText.value, 'text');
  if (output.text.trim() === '' && output.toolCalls.length === 0) return { ok: false, error: 'the response was empty' };
  const broken = brokenTextDirective(output.text);
  if (broken) return { ok: false, error: `no ${DIRECTIVE_TOOL_NAME} call, and ${broken}` };
  return { ok: false, error: `no ${DIRECTIVE_TOOL_NAME} call and no JSON directive object in the text` };
}

/** Removes the JSON directive object (and its ``` fence) that a tool-less model put in its message. */
export function stripDirectiveJson(text: string): string {
  const found = findJsonObject(text, hasTransition);
  if (!found) return text.trim();
  const { start, end } = found.span.fence ?? found.span;
  return `${text.slice(0, start)}${text.slice(end)}`.trim();
}

/** The message sent back for the single repair round. */
export function repairPrompt(error: string): string {
  return [
    `Your last turn did not include a valid ${DIRECTIVE_TOOL_NAME}: ${error}.`,
    `Do not repeat your message. Call ${DIRECTIVE_TOOL_NAME} now with a valid directive`,
    '(or, if you cannot call tools, reply with only the JSON object).',
  ].join(' ');
}
