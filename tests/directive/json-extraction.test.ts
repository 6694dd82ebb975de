import { describe, expect, it } from 'vitest';
import { extractJsonObject, parseDirective, stripDirectiveJson } from '../../src/directive/parse.js';
import { jsonCandidates } from '../../src/directive/json-scan.js';
import { fixture, openBraces } from '../fixtures/hostile-b/inputs.js';

/** The extraction before issue 10 item 7 (quadratic on unclosed braces), kept as the oracle for normal input. */
function referenceExtract(text: string): unknown {
  const balancedEnd = (start: number): number => {
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
  };
  const candidates: string[] = [];
  for (const m of text.matchAll(/```(?:json)?\s*([\s\S]*?)```/g)) if (m[1]) candidates.push(m[1]);
  for (let i = text.indexOf('{'); i >= 0; ) {
    const end = balancedEnd(i);
    if (end >= 0) candidates.push(text.slice(i, end + 1));
    i = text.indexOf('{', end >= 0 ? end + 1 : i + 1);
  }
  for (let i = candidates.length - 1; i >= 0; i--) {
    try {
      const value: unknown = JSON.parse(candidates[i]!.trim());
      if (value && typeof value === 'object' && !Array.isArray(value)) return value;
    } catch {
      // next
    }
  }
  return undefined;
}

/** Seeded generator of model-like replies: prose, stray braces and quotes, fenced and bare objects. */
function replies(count: number): string[] {
  let seed = 42;
  const rand = (n: number) => {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    return seed % n;
  };
  const parts = [
    'The keeper trims the lamp. ',
    'Use a set like {a, b} for pieces. ',
    'A stray { brace. ',
    'Sizes like 12" and 15" screens. ',
    '{"transition":"COMPLETE"}',
    '{"transition":"HANDOFF_TO_AGENT","next_agent":"ceo","content":"a } inside {"}',
    '```json\n{"transition":"RESPOND_TO_USER"}\n```',
    '{"nested":{"deep":{"x":[1,2,{"y":"}"}]}}}',
    ' "quoted {text}" ',
    '\n',
    '{"escaped":"a \\" quote { and \\\\"}',
    '} stray close. ',
    '{"decisions":["d1"],"discussions":[],"pending":[]}',
  ];
  return Array.from({ length: count }, () => Array.from({ length: 1 + rand(6) }, () => parts[rand(parts.length)]).join(''));
}

describe('JSON extraction in one pass (issue 10, item 7)', () => {
  it('finds the same object as the former extraction on normal replies', () => {
    for (const text of replies(2000)) expect(extractJsonObject(text), text).toEqual(referenceExtract(text));
  });

  it('finds an object after a stray brace followed by an odd quote in the prose', () => {
    expect(extractJsonObject('A {12" screen. {"transition":"COMPLETE"}')).toEqual({ transition: 'COMPLETE' });
  });

  it('handles 200 KB of opening braces (hostile corpus) with a linear number of candidates', () => {
    const braces = openBraces();
    expect(jsonCandidates(braces)).toEqual([]);
    expect(extractJsonObject(braces)).toBeUndefined();
    expect(extractJsonObject(`${braces} {"transition":"COMPLETE"}`)).toEqual({ transition: 'COMPLETE' });
    expect(jsonCandidates(`${'{"a":'.repeat(50_000)}`).length).toBe(0);
  });

  it('strips the directive and its fence from the message, wherever it sits', () => {
    expect(stripDirectiveJson('I approve.\n```json\n{"transition": "COMPLETE"}\n```')).toBe('I approve.');
    expect(stripDirectiveJson('My view.\n{"transition":"COMPLETE"}\nThanks.')).toBe('My view.\n\nThanks.');
    expect(stripDirectiveJson('No directive {here}.')).toBe('No directive {here}.');
  });

  it('carries the JSON parse error and where the arguments stopped (truncated tool call)', () => {
    const args = fixture('truncated-directive-args.txt');
    const r = parseDirective({ text: 'My concept.', toolCalls: [{ name: 'handoff_directive', arguments: args }] });
    expect(r.ok).toBe(false);
    expect((r as { error: string }).error).toBe('handoff_directive arguments are not valid JSON (Unexpected end of JSON input; it ends with "…ion\\": \\"HANDOFF_TO_AGENT\\", \\"next_agent\\": ")');
  });

  it('names a directive in the text that does not parse, instead of "no JSON directive"', () => {
    const r = parseDirective({ text: `My concept.\n${fixture('truncated-directive-args.txt')}`, toolCalls: [] });
    expect((r as { error: string }).error).toMatch(/^no handoff_directive call, and the directive JSON in the text is not valid \(Unexpected end of JSON input; it ends with/);
  });
});
