import { timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';

function same(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The one route a token may come in the URL for: a session's event stream (a browser's EventSource cannot set headers). */
const STREAM = /^\/v1\/sessions\/[^/]+\/events$/;

/**
 * Bearer-token auth: `Authorization: Bearer <token>`, or `?access_token=<token>` only on GET of the event
 * stream (URLs end up in logs and histories, so nothing that changes a session takes it there). Wrong or
 * missing: 401 with a one-line JSON error.
 */
export function tokenAuth(token: string): MiddlewareHandler {
  return async (c, next) => {
    const header = c.req.header('authorization');
    const inUrl = c.req.query('access_token');
    const urlAllowed = c.req.method === 'GET' && STREAM.test(c.req.path);
    const given = header?.startsWith('Bearer ') ? header.slice(7) : urlAllowed ? inUrl : undefined;
    if (given === undefined && inUrl !== undefined) {
      return c.json({ error: `access_token in the URL is accepted only on GET /v1/sessions/:id/events; send Authorization: Bearer <TROUPE_SERVE_TOKEN>` }, 401);
    }
    if (given === undefined) return c.json({ error: 'missing bearer token (Authorization: Bearer <TROUPE_SERVE_TOKEN>)' }, 401);
    if (!same(given, token)) return c.json({ error: 'wrong bearer token' }, 401);
    await next();
  };
}
