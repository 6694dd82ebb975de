import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { lazySchema } from '../../src/config/lazy-schema.js';

describe('lazySchema', () => {
  it('builds nothing until first touched, then once', () => {
    let builds = 0;
    const Point = lazySchema(() => (builds++, z.object({ x: z.number(), y: z.number().int() })));
    expect(builds).toBe(0);
    expect(Point.parse({ x: 1.5, y: 2 })).toEqual({ x: 1.5, y: 2 });
    expect(Point.safeParse({ x: 1, y: 0.5 }).success).toBe(false);
    expect(builds).toBe(1);
  });

  it('stands for the schema everywhere zod reads one: methods, shape, nesting, unions, instanceof, keys', () => {
    const Point = lazySchema(() => z.object({ x: z.number(), y: z.number() }));
    const Tagged = lazySchema(() => z.object({ kind: z.literal('a'), at: Point }));
    expect(Point.shape.x.parse(3)).toBe(3);
    expect(Point.extend({ z: z.number() }).parse({ x: 1, y: 2, z: 3 })).toEqual({ x: 1, y: 2, z: 3 });
    expect(Point.optional().parse(undefined)).toBeUndefined();
    expect(
      Point.nullable()
        .array()
        .parse([null, { x: 0, y: 0 }]),
    ).toEqual([null, { x: 0, y: 0 }]);
    const Union = z.discriminatedUnion('kind', [Tagged, z.object({ kind: z.literal('b') })]);
    expect(Union.parse({ kind: 'a', at: { x: 1, y: 1 } })).toEqual({ kind: 'a', at: { x: 1, y: 1 } });
    const bad = Union.safeParse({ kind: 'a', at: { x: 'one', y: 1 } });
    expect(bad.success ? null : bad.error.issues[0]!.path).toEqual(['at', 'x']);
    expect(z.object({ p: Point }).safeParse({ p: { x: 1 } }).success).toBe(false);
    expect(Point instanceof z.ZodObject).toBe(true);
    expect(Object.keys(Point)).toEqual(Object.keys(z.object({ x: z.number(), y: z.number() })));
    expect(z.toJSONSchema(z.object({ p: Point }), { target: 'draft-7' })).toEqual(z.toJSONSchema(z.object({ p: z.object({ x: z.number(), y: z.number() }) }), { target: 'draft-7' }));
  });

  it('stands for a record or a list of schemas, built when first read (spread, keys, map, Array.isArray)', () => {
    let builds = 0;
    const payloads = lazySchema(() => (builds++, { a: z.object({ x: z.number() }), b: z.object({ y: z.string() }) }));
    const list = lazySchema(() => (builds++, [z.literal('a'), z.literal('b')] as const), []);
    const names = lazySchema(() => Object.keys(payloads), []);
    expect(builds).toBe(0);
    expect(Array.isArray(names)).toBe(true);
    expect(builds).toBe(0);
    expect([...names]).toEqual(['a', 'b']);
    expect(names.map((n) => n.toUpperCase())).toEqual(['A', 'B']);
    expect(names).toContain('b');
    expect(names).toHaveLength(2);
    expect({ ...payloads }.b.parse({ y: 'ok' })).toEqual({ y: 'ok' });
    expect(z.union([...list]).parse('b')).toBe('b');
    expect(builds).toBe(2);
  });
});
