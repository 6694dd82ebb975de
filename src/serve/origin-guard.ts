import type { MiddlewareHandler } from 'hono';
import { LOOPBACK } from './serve-token.js';

// Without a token the server trusts whoever reaches it, which on loopback is this machine's user. A browser
// page from anywhere can reach loopback too: by DNS rebinding (a name of the attacker's that now points at
// 127.0.0.1: its requests carry that name as Host), or by a cross-origin "simple" request (a form or a
// no-cors fetch with text/plain, sent without a preflight). The guard refuses both.

/** Methods that change something on the server. */
const WRITES = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** The host name of a Host header value, lower-cased, without its port or IPv6 brackets; null when it has none. */
export function hostNameOf(header: string | undefined): string | null {
  if (!header) return null;
  const value = header.trim().toLowerCase();
  if (value.startsWith('[')) {
    const end = value.indexOf(']');
    return end > 1 ? value.slice(1, end) : null;
  }
  const name = value.replace(/:\d*$/, '');
  return name === '' ? null : name;
}

/** The names a tokenless server answers to: the loopback names and those configured (TROUPE_SERVE_ALLOWED_HOSTS). */
export function allowedHostNames(configured: readonly string[] = []): ReadonlySet<string> {
  return new Set([...LOOPBACK, ...configured.map((h) => hostNameOf(h)).filter((h): h is string => h !== null)]);
}

/** Parses TROUPE_SERVE_ALLOWED_HOSTS: names separated by commas or spaces. */
export function parseAllowedHosts(value: string | undefined): string[] {
  return (value ?? '').split(/[\s,]+/).filter(Boolean);
}

/**
 * The guard of a server without a token: the Host header must name an allowed host (else 403: DNS
 * rebinding), a request from a browser must come from the server's own origin (`Origin`, `Sec-Fetch-Site`),
 * and a write must say `Content-Type: application/json` (else 415: no cross-origin "simple" request).
 */
export function originGuard(allowed: ReadonlySet<string>): MiddlewareHandler {
  const names = [...allowed].join(', ');
  return async (c, next) => {
    const host = c.req.header('host');
    const name = hostNameOf(host);
    // A browser always sends Host (DNS rebinding comes through one); a request without it is not from a page.
    if (name !== null && !allowed.has(name)) {
      return c.json(
        {
          error: `Host "${host ?? ''}" is not a name of this server (${names}); a server without a token answers only to those — add a name with TROUPE_SERVE_ALLOWED_HOSTS, or set TROUPE_SERVE_TOKEN`,
        },
        403,
      );
    }
    const site = c.req.header('sec-fetch-site');
    const origin = c.req.header('origin');
    if ((site !== undefined && site !== 'same-origin' && site !== 'none') || (origin !== undefined && (host === undefined || origin !== `http://${host}`))) {
      return c.json({ error: `a request from another origin (${origin ?? site}) is refused by a server without a token; set TROUPE_SERVE_TOKEN to call it from other pages` }, 403);
    }
    if (WRITES.has(c.req.method)) {
      const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
      if (type !== 'application/json') return c.json({ error: `Content-Type must be application/json, got "${type || 'none'}"` }, 415);
    }
    await next();
  };
}
