import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import type { TroupeEventName } from '../../src/engine/event-map.js';
import { DISPLAY_START, displayNames, displayStep } from '../../src/report/display-items.js';
import { MARKS } from '../../src/report/display-item.js';
import { EVENT_SAMPLES, sampleEvent } from '../helpers/event-samples.js';
import { studio } from '../helpers/team.js';

/** Whether the font fontconfig gives a generic family (the terminal's monospace, the console's sans-serif) draws a character; null without fontconfig. */
function drawnBy(generic: 'monospace' | 'sans-serif', char: string): boolean | null {
  try {
    const family = execFileSync('fc-match', [generic, 'family'], { encoding: 'utf8' }).trim();
    return execFileSync('fc-list', [`${family}:charset=${char.codePointAt(0)!.toString(16)}`, 'family'], { encoding: 'utf8' }).trim() !== '';
  } catch {
    return null;
  }
}
const fontconfig = drawnBy('monospace', 'a') !== null;

describe('the marks views put before items', () => {
  it('every mark an event is worded with is one of MARKS', () => {
    const names = displayNames(studio().def);
    const used = new Set(Object.keys(EVENT_SAMPLES).flatMap((type) => displayStep(DISPLAY_START, sampleEvent(type as TroupeEventName), names).items.flatMap((i) => (i.mark ? [i.mark] : []))));
    expect([...used].filter((m) => !(MARKS as readonly string[]).includes(m))).toEqual([]);
    expect(used.size).toBeGreaterThan(5);
  });

  // The tmux the TUI tests run in and the chromium of the console's draw with the fonts installed here: a mark the
  // font of the generic family does not draw is an empty box (⏸ and ⤷ were, in both).
  it.skipIf(!fontconfig)("each is drawn by the font of the terminal's monospace and of the console's sans-serif", () => {
    const undrawn = MARKS.filter((m) => !drawnBy('monospace', m) || !drawnBy('sans-serif', m));
    expect(undrawn).toEqual([]);
  });
});
