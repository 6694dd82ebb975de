import { describe, expect, it } from 'vitest';
import { IdleFirst } from '../../src/serve/idle-first.js';

describe('IdleFirst', () => {
  it('makes room by closing the connection idle longest, and refuses when every held one is busy', () => {
    const pool = new IdleFirst<string>(2);
    const closed: string[] = [];
    expect(pool.admit('a', (c) => closed.push(c))).toBe(true);
    expect(pool.admit('b', (c) => closed.push(c))).toBe(true);
    pool.began('a');
    pool.ended('a', true); // a is idle again, after b: b is now the one idle longest
    expect(pool.admit('c', (c) => closed.push(c))).toBe(true);
    expect(closed).toEqual(['b']);
    pool.began('a');
    pool.began('c');
    expect(pool.admit('d', (c) => closed.push(c))).toBe(false);
    expect(pool.size).toBe(2);
  });

  it('counts requests per connection, and a connection that closed first is counted off once', () => {
    const pool = new IdleFirst<string>(4);
    pool.admit('a', () => {});
    pool.began('a');
    pool.began('a');
    expect(pool.ended('a', true)).toBe(true);
    expect(pool.closed('a')).toBe(1);
    expect(pool.ended('a', false)).toBe(false);
    expect(pool.holds('a')).toBe(false);
    expect(pool.size).toBe(0);
  });
});
