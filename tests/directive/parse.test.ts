import { describe, expect, it } from 'vitest';
import { extractJsonObject, parseDirective, repairPrompt, stripDirectiveJson } from '../../src/directive/parse.js';
import { directiveTool } from '../../src/directive/tool.js';

const call = (args: string) => ({ text: 'words', toolCalls: [{ name: 'handoff_directive', arguments: args }] });

describe('parseDirective', () => {
  it('reads the tool call', () => {
    const r = parseDirective(call('{"transition":"APPROVE_AND_HANDOFF","next_agent":"CEO","urgency":0.4}'));
    expect(r).toMatchObject({ ok: true, source: 'tool', directive: { transition: 'APPROVE_AND_HANDOFF', next_agent: 'CEO', urgency: 0.4 } });
  });

  it('reads a JSON object in the text when there is no tool call', () => {
    const r = parseDirective({ text: 'I approve.\n```json\n{"transition": "REQUEST_REWORK", "rework_reason": "too long"}\n```', toolCalls: [] });
    expect(r).toMatchObject({ ok: true, source: 'text', directive: { transition: 'REQUEST_REWORK', rework_reason: 'too long' } });
    const bare = parseDirective({ text: 'Done. {"transition":"COMPLETE"}', toolCalls: [] });
    expect(bare).toMatchObject({ ok: true, directive: { transition: 'COMPLETE' } });
  });

  it('explains what is wrong instead of throwing', () => {
    expect(parseDirective(call('{not json'))).toMatchObject({ ok: false });
    expect((parseDirective(call('{not json')) as { error: string }).error).toMatch(/not valid JSON/);
    expect((parseDirective(call('{"transition":"DANCE"}')) as { error: string }).error).toMatch(/transition/);
    expect((parseDirective(call('{"transition":"HANDOFF_TO_AGENT"}')) as { error: string }).error).toMatch(/needs next_agent/);
    expect((parseDirective(call('{"transition":"HANDOFF_TO_AGENT","next_agent":"x","urgency":7}')) as { error: string }).error).toMatch(/urgency/);
    expect((parseDirective({ text: '', toolCalls: [] }) as { error: string }).error).toBe('the response was empty');
    expect((parseDirective({ text: 'just words', toolCalls: [] }) as { error: string }).error).toMatch(/no handoff_directive call/);
  });

  it('finds the last balanced object, ignoring braces inside strings', () => {
    expect(extractJsonObject('a {"x": "}"} then {"transition":"COMPLETE","content":"{ok}"}')).toEqual({ transition: 'COMPLETE', content: '{ok}' });
    expect(extractJsonObject('no json here')).toBeUndefined();
    // A stray brace in the prose does not hide the directive after it.
    expect(extractJsonObject('Use a set like {a, b for the pieces. {"transition":"COMPLETE"}')).toEqual({ transition: 'COMPLETE' });
  });

  it('strips a trailing JSON directive from the message text', () => {
    expect(stripDirectiveJson('My view.\n{"transition":"COMPLETE"}')).toBe('My view.');
  });

  it('builds a repair prompt carrying the error and a tool schema from zod', () => {
    expect(repairPrompt('transition: Invalid option')).toContain('transition: Invalid option');
    const tool = directiveTool();
    expect(tool.name).toBe('handoff_directive');
    expect(JSON.stringify(tool.parameters)).toContain('APPROVE_AND_HANDOFF');
  });
});
