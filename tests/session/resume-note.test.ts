import { describe, expect, it } from 'vitest';
import { initialState } from '../../src/engine/step.js';
import { resumeNote } from '../../src/session/resume-note.js';
import { studio } from '../helpers/team.js';

describe('the note a reopened session publishes', () => {
  const def = studio().def;
  const base = initialState(def, { id: 's' });

  it('words the status it was found in as troupe sessions does, never the engine name ("status awaiting_user")', () => {
    const waiting = { ...base, turn: 13, status: 'awaiting_user' as const, awaiting: { code: 'complete' as const, reason: 'CEO declared the work complete' } };
    expect(resumeNote(def, waiting as typeof base)).toBe('session resumed at turn 13 (waiting: complete)');
    expect(resumeNote(def, { ...base, status: 'running' })).toBe('session resumed at turn 0 (interrupted)');
  });

  it('names the turn it re-runs when one was in flight', () => {
    const inFlight = { ...base, turn: 4, status: 'running' as const, inFlight: { persona: 'cfo', turnId: 't5', path: 'STRATEGIC.cfo' } };
    expect(resumeNote(def, inFlight as typeof base)).toBe("session resumed at turn 4 (re-running CFO's turn t5, which was in flight)");
  });
});
