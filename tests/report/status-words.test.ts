import { describe, expect, it } from 'vitest';
import { statusFactsOf, statusWords } from '../../src/report/status-words.js';

describe('a session status in words (one source for troupe sessions, the list and the view of both backends)', () => {
  const running = statusFactsOf({ status: 'running', awaiting: null, endReason: null });

  it('running with nobody running it is interrupted; run live, running; open in another process, that process', () => {
    expect(statusWords(running, null)).toBe('interrupted');
    expect(statusWords(running, 'live')).toBe('running');
    expect(statusWords(running, 4242)).toBe('open (pid 4242)');
  });

  it('waiting names what for, ended names why, idle has not started: whoever holds it', () => {
    for (const holder of [null, 'live'] as const) {
      expect(statusWords(statusFactsOf({ status: 'awaiting_user', awaiting: { code: 'approval' }, endReason: null }), holder)).toBe('waiting: approval');
      expect(statusWords(statusFactsOf({ status: 'ended', awaiting: null, endReason: 'completed' }), holder)).toBe('ended: completed');
      expect(statusWords(statusFactsOf({ status: 'idle', awaiting: null, endReason: null }), holder)).toBe('not started');
    }
  });
});
