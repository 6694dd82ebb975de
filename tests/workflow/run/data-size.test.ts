import { describe, expect, it } from 'vitest';
import { answerBytes, commonDataBytes, jsonBytes } from '../../../src/workflow/run/data-size.js';

// answerBytes counts an answer member by member (each common_data once per object): its figures must be what
// writing the answer out gives, whatever the answer holds.

const shared = { note: 'ünïcødé ✓ \u2028 "quoted" \\ \ud83d\ude00', n: -0, list: [1, null, 'x'], deep: { a: { b: [true, false] } } };
const ANSWERS: [string, Record<string, unknown>][] = [
  ['ok with a value', { ok: true, common_data: { a: 1 }, value: 'stop' }],
  ['a failure', { ok: false, error: 'boom ✗' }],
  ['no common_data', { ok: true, value: 3 }],
  ['common_data null', { ok: true, common_data: null, value: null }],
  ['common_data first or last', { value: [1, 2], ok: true, common_data: shared }],
  ['undefined members and a function', { ok: true, common_data: { a: undefined, b: 2 }, value: undefined, logs: ['x'], f: () => 1 }],
  ['a value with toJSON', { ok: true, common_data: {}, value: new Date(0) }],
  ['keys that need escaping', { ok: true, common_data: { 'k"\n': 1, ü: 2 }, 'odd "key"': 'v', ключ: 'значение' }],
  ['appended and logs', { ok: true, common_data: shared, appended: { c: [{ role: 'user', content: 'hi ✓' }] }, logs: ['one', 'two'] }],
  ['a chain sharing one common_data', { ok: true, common_data: shared, value: 'next', next: { ok: true, common_data: shared, value: -1, next: { ok: true, common_data: { other: 'ü' } } } }],
  ['a chained part with common_data alone', { ok: true, common_data: shared, next: { common_data: shared } }],
  ['a chained part without common_data', { ok: true, common_data: {}, next: { ok: false, error: 'x' } }],
  ['a chained part that is empty', { ok: true, common_data: {}, next: {} }],
  ['next that is not a plain object', { ok: true, common_data: {}, next: [1, { common_data: shared }] }],
  ['integer-like keys (written first)', { ok: true, common_data: { b: 1, 2: 'two', 1: 'one' }, 10: 'ten', value: 1 }],
];

describe('answerBytes', () => {
  it.each(ANSWERS)('gives the bytes of the answer written out: %s', (_name, answer) => {
    const { common_data, ...rest } = answer;
    expect(answerBytes(answer)).toEqual({ held: jsonBytes(common_data), rest: jsonBytes(rest) });
  });

  it('counts a common_data object once: what it says stays what writing it out said', () => {
    const data = { text: 'x'.repeat(100) };
    expect(commonDataBytes(data)).toBe(jsonBytes(data));
    expect(commonDataBytes(data)).toBe(jsonBytes(data));
    expect(commonDataBytes({ ...data })).toBe(jsonBytes(data));
  });
});
