import { Hono, type Context } from 'hono';
import { bodyLimit } from 'hono/body-limit';
import type { z } from 'zod';
import { UserError } from '../errors.js';
import { tokenAuth } from './auth.js';
import { RequestRefused } from './host.js';
import { openApiDocument } from './openapi.js';
import { nodeRequest, readNodeBody, tooLarge } from './request-body.js';
import { allowedHostNames, originGuard } from './origin-guard.js';
import { thisUserOnly } from './peer-user.js';

/** A JSON error answer: `{ error }` with the status. */
export const refuse = (c: Context, status: number, error: string) => c.json({ error }, status as 400);

/**
 * Where a reader's stream resumes: after the event its Last-Event-ID (or `?after=`) names, from the start when
 * that is not a number of events (negative, not a number, past any) — the same on both backends.
 */
export function resumeAfter(c: Context): number {
  const after = Number(c.req.header('Last-Event-ID') ?? c.req.query('after') ?? 0);
  return Number.isSafeInteger(after) && after > 0 ? after : 0;
}

/** The request's JSON body checked against a schema; refused (400) naming the field when it does not fit. */
export async function readBody<T extends z.ZodType>(c: Context, schema: T): Promise<z.infer<T>> {
  const type = (c.req.header('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json') throw new RequestRefused(415, `Content-Type must be application/json, got "${type || 'none'}"`);
  const incoming = nodeRequest(c);
  // On Node the body is read from the connection with its own limit (see readNodeBody); elsewhere Hono's limit has run.
  const text = incoming ? await readNodeBody(incoming, (c.get('maxBodyBytes' as never) as number | undefined) ?? Number.POSITIVE_INFINITY) : await c.req.text();
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new RequestRefused(400, 'the body is not JSON');
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new RequestRefused(400, `${issue.path.map(String).join('.') || 'body'}: ${issue.message}`);
}

/** What both backends' APIs share: auth, the body limit, the health answer, and errors that carry their own status. */
export interface ApiFrameOptions {
  token: string | null;
  maxBodyBytes: number;
  /** What `/healthz` answers. */
  health: () => Record<string, unknown>;
  /** An error of the backend that carries its HTTP status (besides RequestRefused). */
  statusOf?: (error: Error) => number | null;
  /** Host names besides the loopback ones a server without a token answers to (TROUPE_SERVE_ALLOWED_HOSTS). */
  allowedHosts?: readonly string[];
  /** Adds the routes of the page at `/` (the console), before the API is mounted. */
  page?: (app: Hono) => void;
}

/**
 * The routes and error handling both `troupe serve` backends share: JSON errors (a refused request with its
 * status, a user error as 400 or 404, anything else 500), `/healthz`, the page, the OpenAPI document,
 * and `api` (mounted at `/v1` by `mount`) behind the token and the body limit. Without a token every route
 * is behind the origin guard (loopback Host names, same-origin browser requests, JSON writes).
 */
export function apiFrame(options: ApiFrameOptions): { app: Hono; api: Hono; mount: () => Hono } {
  const app = new Hono();
  app.onError((error, c) => {
    const status = error instanceof RequestRefused ? error.status : (options.statusOf?.(error) ?? null);
    if (status !== null) return refuse(c, status, error.message);
    if (error instanceof UserError) return refuse(c, /no session/.test(error.message) ? 404 : 400, error.message.split('\n')[0]!);
    return refuse(c, 500, `internal error: ${error.message.split('\n')[0]}`);
  });
  app.notFound((c) => refuse(c, 404, `no route ${c.req.method} ${c.req.path}`));
  if (!options.token) {
    // Names added for a server fronted by something else (a reverse proxy, perhaps another user's): its connections are not this user's.
    const uid = typeof process.getuid === 'function' && !options.allowedHosts?.length ? process.getuid() : null;
    app.use(
      '*',
      thisUserOnly(uid, (c) => nodeRequest(c)?.socket),
    );
    app.use('*', originGuard(allowedHostNames(options.allowedHosts)));
  }
  app.get('/healthz', (c) => c.json(options.health()));
  options.page?.(app);
  app.get('/openapi.json', (c) => c.json(openApiDocument()));

  const api = new Hono();
  if (options.token) api.use('*', tokenAuth(options.token));
  const limit = bodyLimit({ maxSize: options.maxBodyBytes, onError: (c) => refuse(c, 413, tooLarge(options.maxBodyBytes).message) });
  // A GET has no body to limit, and asking for it builds the whole Request on Node (7% of the CPU of 1,000 readers
  // connecting). On Node a body is limited where it is read (readBody), and a length over the limit refused here.
  api.use('*', (c, next) => {
    if (c.req.method === 'GET' || c.req.method === 'HEAD') return next();
    const incoming = nodeRequest(c);
    if (!incoming) return limit(c, next);
    if (Number(incoming.headers['content-length']) > options.maxBodyBytes) return Promise.resolve(refuse(c, 413, tooLarge(options.maxBodyBytes).message));
    c.set('maxBodyBytes' as never, options.maxBodyBytes as never);
    return next();
  });
  return { app, api, mount: () => app.route('/v1', api) };
}
