import { describe, expect, it } from 'vitest';
import { maxConnectionsSetting, maxStreamsSetting } from '../../src/cli/serve-settings.js';

describe('the connection and stream caps of troupe serve and troupe worker', () => {
  it('TROUPE_SERVE_MAX_CONNECTIONS and TROUPE_WORKER_MAX_STREAMS: unset is the default, a whole number is taken, anything else is one line naming it', () => {
    expect(maxConnectionsSetting({})).toBeUndefined();
    expect(maxConnectionsSetting({ TROUPE_SERVE_MAX_CONNECTIONS: '64' })).toBe(64);
    expect(() => maxConnectionsSetting({ TROUPE_SERVE_MAX_CONNECTIONS: '1' })).toThrow('TROUPE_SERVE_MAX_CONNECTIONS must be a whole number >= 2, got "1"');
    expect(maxStreamsSetting({})).toBeUndefined();
    expect(maxStreamsSetting({ TROUPE_WORKER_MAX_STREAMS: '500' })).toBe(500);
    expect(() => maxStreamsSetting({ TROUPE_WORKER_MAX_STREAMS: '1e3x' })).toThrow('TROUPE_WORKER_MAX_STREAMS must be a whole number >= 1, got "1e3x"');
  });
});
