import { describe, expect, it } from 'vitest';
import { parseTemplate } from '../../../src/workflow/sandbox/template.js';

describe('message templates', () => {
  it('split into text and placeholder paths', () => {
    expect(parseTemplate('Please help with: {input.user_request}')).toEqual(['Please help with: ', { path: ['input', 'user_request'], raw: '{input.user_request}' }]);
    expect(parseTemplate('{x} and { common_data.y.0 }')).toEqual([{ path: ['x'], raw: '{x}' }, ' and ', { path: ['common_data', 'y', '0'], raw: '{ common_data.y.0 }' }]);
  });

  it('leave braces that are not placeholders as text (JSON, code)', () => {
    expect(parseTemplate('{"a": 1} {a b} {} {1x}')).toEqual(['{"a": 1} {a b} {} {1x}']);
  });
});
