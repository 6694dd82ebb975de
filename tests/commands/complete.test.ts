import { describe, expect, it } from 'vitest';
import { complete } from '../../src/commands/complete.js';
import { studio } from '../helpers/team.js';

const def = studio().def;

describe('complete', () => {
  it('completes a unique command name', () => {
    expect(complete('!hand', def)).toEqual({ line: '!handoff ', candidates: ['handoff'] });
    expect(complete('/appr', def).line).toBe('/approve ');
  });

  it('lists candidates and extends to their common prefix when ambiguous', () => {
    const c = complete('!c', def);
    expect(c.candidates).toEqual(['call_agent', 'continue', 'cost']);
    expect(c.line).toBe('!c');
  });

  it('completes persona ids and majors for the commands that take them', () => {
    expect(complete('!handoff ce', def)).toEqual({ line: '!handoff ceo ', candidates: ['ceo'] });
    expect(complete('!call_agent c', def).candidates).toEqual(['ceo', 'cfo', 'cmo', 'creative_partner', 'concept_artist']);
    expect(complete('!switch_to TE', def).line).toBe('!switch_to TECHNICAL ');
  });

  it('leaves plain text alone', () => {
    expect(complete('hello', def)).toEqual({ line: 'hello', candidates: [] });
  });
});
