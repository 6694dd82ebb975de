import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { REPO_ROOT } from './team.js';

/** Hostile texts (tests/fixtures/terminal/hostile.json): OSC 52 / OSC 0 / OSC 8, CSI (clear, hidden, cursor), CR and backspace tricks, C1, DCS, bidi. */
export const HOSTILE = JSON.parse(readFileSync(join(REPO_ROOT, 'tests', 'fixtures', 'terminal', 'hostile.json'), 'utf8')) as Record<string, string>;

/** All the hostile texts in one string. */
export const ALL_HOSTILE = Object.values(HOSTILE).join(' | ');

/** Anything a terminal would act on (other than a newline or a tab). */
export const ACTIVE = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/;
