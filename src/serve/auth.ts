import { timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/**
 * Bearer-token auth: `Authorization: Bearer <token>`, or `?access_token=<token>` for the event stream
 * (a browser's EventSource cannot set headers). Wrong or missing: 401 with a one-line JSON error.
 */
export function tokenAuth(token: string): MiddlewareHandler {
  return async (c, next) => {
    const header = c.req.header('authorization');
    const given = header?.startsWith('Bearer ') ? header.slice(7) : c.req.query('access_token');
    if (given === undefined) return c.json({ error: 'missing bearer token (Authorization: Bearer <TROUPE_SERVE_TOKEN>)' }, 401);
    if (!same(given, token)) return c.json({ error: 'wrong bearer token' }, 401);
    await next();
  };
}
