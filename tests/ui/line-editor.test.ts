import { describe, expect, it } from 'vitest';
import { edit, EMPTY_EDITOR, type EditorState } from '../../src/ui/line-editor.js';

const type = (s: EditorState, input: string, key = {}) => edit(s, input, key);

describe('line editor', () => {
  it('submits a pasted or scripted line that arrives as one chunk with return false', () => {
    const r = type(EMPTY_EDITOR, '!handoff CEO\r');
    expect(r.submitted).toEqual(['!handoff CEO']);
    expect(r.state.buffer).toBe('');
  });

  it('splits a chunk on CR, LF and CRLF and keeps the unfinished tail', () => {
    const r = type(EMPTY_EDITOR, 'brief\r\n!simple\n!fsm\rhalf');
    expect(r.submitted).toEqual(['brief', '!simple', '!fsm']);
    expect(r.state.buffer).toBe('half');
  });

  it('a bracketed paste (as Ink hands it over) becomes one message, sent with Enter, line breaks kept', () => {
    let s = type(EMPTY_EDITOR, '[200~').state;
    const pasted = type(s, 'make the keeper a child\rand the island smaller\r');
    expect(pasted.submitted).toEqual([]);
    s = type(pasted.state, '[201~').state;
    expect(s.buffer).toBe('make the keeper a child\nand the island smaller\n');
    const sent = type(s, '', { return: true });
    expect(sent.submitted).toEqual(['make the keeper a child\nand the island smaller\n']);
    // Typing after the paste works as before.
    expect(type(sent.state, 'x\r').submitted).toEqual(['x']);
  });

  it('builds a line from single keys and submits on return; backspace and Ctrl+U edit', () => {
    let s = EMPTY_EDITOR;
    for (const ch of 'abcx') s = type(s, ch).state;
    s = type(s, '', { backspace: true }).state;
    s = type(s, '', { delete: true }).state;
    expect(s.buffer).toBe('ab');
    const r = type(s, '', { return: true });
    expect(r.submitted).toEqual(['ab']);
    expect(type({ ...s, buffer: 'junk' }, 'u', { ctrl: true }).state.buffer).toBe('');
  });

  it('browses history with up/down and restores the draft', () => {
    let s = type(type(EMPTY_EDITOR, 'one\r').state, 'two\r').state;
    s = type(s, 'dra').state;
    s = type(s, '', { upArrow: true }).state;
    expect(s.buffer).toBe('two');
    s = type(s, '', { upArrow: true }).state;
    expect(s.buffer).toBe('one');
    s = type(s, '', { upArrow: true }).state;
    expect(s.buffer).toBe('one');
    s = type(s, '', { downArrow: true }).state;
    expect(s.buffer).toBe('two');
    s = type(s, '', { downArrow: true }).state;
    expect(s.buffer).toBe('dra');
  });

  it('completes with Tab and reports Ctrl+C as an interrupt', () => {
    const complete = (line: string) => ({ line: `${line}x `, candidates: ['a', 'b'] });
    const r = edit({ ...EMPTY_EDITOR, buffer: '!h' }, '', { tab: true }, complete);
    expect(r.state).toMatchObject({ buffer: '!hx ', candidates: ['a', 'b'] });
    expect(type(EMPTY_EDITOR, 'c', { ctrl: true }).interrupt).toBe(true);
  });

  it('does not record blank lines or repeats in history', () => {
    let s = EMPTY_EDITOR;
    for (const line of ['a\r', '\r', 'a\r']) s = type(s, line).state;
    expect(s.history).toEqual(['a']);
  });
});
