import { describe, expect, it } from 'vitest';
import { terminalSafe, terminalSafeJson } from '../../src/report/terminal-safe.js';
import { ACTIVE, HOSTILE } from '../helpers/hostile-text.js';

describe('terminalSafe', () => {
  it.each(Object.entries(HOSTILE))('leaves nothing a terminal acts on: %s', (_name, text) => {
    expect(terminalSafe(text)).not.toMatch(ACTIVE);
  });

  it('removes escape sequences whole, shows other controls, keeps the words, newlines and tabs', () => {
    expect(terminalSafe(HOSTILE.osc52_clipboard!)).toBe('copy this  please');
    expect(terminalSafe(HOSTILE.osc0_title!)).toBe('title set');
    expect(terminalSafe(HOSTILE.csi_hidden!)).toBe('visible hidden instructions end');
    expect(terminalSafe(HOSTILE.cr_overwrite!)).toBe('rm -rf / # harmless␍safe text');
    expect(terminalSafe(HOSTILE.backspace!)).toBe('approved␈␈␈␈␈␈␈␈rejected');
    expect(terminalSafe(HOSTILE.lone_esc!)).toBe('trailing escape ␛');
    expect(terminalSafe(HOSTILE.c1_csi!)).toBe('eight-bit red');
    expect(terminalSafe(HOSTILE.bidi_override!)).toBe('user \\u202eexe.txt');
    expect(terminalSafe(HOSTILE.keeps_newlines_and_tabs!)).toBe('a\tb\nc');
    expect(terminalSafe('plain — text ✓ 日本')).toBe('plain — text ✓ 日本');
  });

  it('JSON: the characters JSON.stringify leaves raw are escaped, the value is the same', () => {
    for (const text of Object.values(HOSTILE)) {
      const json = terminalSafeJson(JSON.stringify({ text }));
      expect(json).not.toMatch(ACTIVE);
      expect(JSON.parse(json).text).toBe(text);
    }
  });
});
