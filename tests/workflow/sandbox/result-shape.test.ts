import { describe, expect, it } from 'vitest';
import { EvaluationResultSchema } from '../../../src/engine/evaluation.js';
import { evaluationResultOf } from '../../../src/workflow/sandbox/result-shape.js';

// The hand check replaces EvaluationResultSchema.safeParse on every answer: it must accept, refuse and give exactly what the schema does.
const answers: [string, unknown][] = [
  ['a success', { ok: true, value: 1, common_data: { a: 1 } }],
  ['a success without a value', { ok: true, common_data: {} }],
  ['logs and contexts', { ok: true, value: 'x', common_data: {}, logs: ['a', 'b'], contexts: { c: [{ role: 'user', content: 'hi' }] } }],
  ['a chain', { ok: true, value: 0, common_data: {}, next: { ok: true, value: 'write', common_data: { b: 2 }, next: { ok: false, error: 'no' } } }],
  ['a failure', { ok: false, error: 'boom' }],
  ['unknown keys (dropped)', { ok: true, value: 1, common_data: {}, extra: 1, next: { ok: false, error: 'e', more: true } }],
  ['a message with more than role and content (dropped)', { ok: true, common_data: {}, contexts: { c: [{ role: 'system', content: 'x', name: 'n' }] } }],
  ['an array as common_data', { ok: true, common_data: [] }],
  ['null common_data', { ok: true, common_data: null }],
  ['no common_data', { ok: true, value: 1 }],
  ['ok neither true nor false', { ok: 'yes', common_data: {} }],
  ['a failure without an error', { ok: false }],
  ['a failure whose error is not text', { ok: false, error: 1 }],
  ['a log line that is not text', { ok: true, common_data: {}, logs: ['a', 1] }],
  ['logs that are not a list', { ok: true, common_data: {}, logs: 'a' }],
  ['a message with a bad role', { ok: true, common_data: {}, contexts: { c: [{ role: 'tool', content: 'x' }] } }],
  ['a message without content', { ok: true, common_data: {}, contexts: { c: [{ role: 'user' }] } }],
  ['contexts that are a list', { ok: true, common_data: {}, contexts: [] }],
  ['a malformed chained result', { ok: true, common_data: {}, next: { ok: true } }],
  ['null', null],
  ['a string', 'ok'],
  ['a list', [{ ok: true, common_data: {} }]],
];

describe('evaluationResultOf decides as EvaluationResultSchema does', () => {
  it.each(answers)('%s', (_name, answer) => {
    const parsed = EvaluationResultSchema.safeParse(answer);
    const checked = evaluationResultOf(answer);
    if (parsed.success) expect(checked).toStrictEqual(parsed.data);
    else expect(checked).toBeNull();
  });
});
