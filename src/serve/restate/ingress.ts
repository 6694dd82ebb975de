import type * as Clients from '@restatedev/restate-sdk-clients';
import { TroupeError } from '../../errors.js';
import { RequestRefused } from '../host.js';
import type { WorkflowPlan } from '../../workflow/run/plan.js';
import { INDEX_KEY, RESTATE_NAMES } from './names.js';
import type { CreateRequest, EventsPage, IndexEntry, LineAnswer, ListingLine, LiveTarget } from './records.js';

/** Restate could not be reached, failed or did not answer in time (not the request's fault): answered 502/503/504. */
export class RestateUnavailable extends TroupeError {
  constructor(
    readonly status: 502 | 503 | 504,
    message: string,
  ) {
    super(message);
  }
}

const REFUSED = new Set([400, 403, 404, 409, 413, 429]);

/** The serve side of the Restate backend: each API request becomes a call to a session's handler through the ingress. */
export class RestateSessions {
  private readonly ingress: Clients.Ingress;

  /** `clients`: the lazily loaded `@restatedev/restate-sdk-clients`; `url`: the Restate ingress. */
  constructor(
    private readonly clients: typeof Clients,
    private readonly url: string,
    private readonly timeoutMs = 30_000,
  ) {
    this.ingress = clients.connect({ url });
  }

  /** Calls a handler of the session object (or another troupe object or service) and returns its JSON answer. */
  async call<T>(handler: string, key: string, parameter: unknown, service: string = RESTATE_NAMES.session): Promise<T> {
    try {
      return await this.ingress.call<unknown, T>({ service, handler, key, parameter, opts: this.clients.Opts.from({ timeout: this.timeoutMs }) });
    } catch (error) {
      throw this.translate(error);
    }
  }

  /** Stores a new session under `id` and starts it; its view (status idle until its first step is applied). */
  create(id: string, request: CreateRequest): Promise<Record<string, unknown>> {
    return this.call('create', id, request);
  }

  /** Applies a typed line: what it answered (inspections are answered at once; anything else is applied in order). */
  line(id: string, text: string, live?: LiveTarget): Promise<LineAnswer> {
    return this.call('line', id, { text, ...(live ? { live } : {}) });
  }

  /** The session's view. */
  snapshot(id: string): Promise<Record<string, unknown>> {
    return this.call('snapshot', id, null);
  }

  /** The session's line in the list. */
  listing(id: string): Promise<ListingLine> {
    return this.call('listing', id, null);
  }

  /** A workflow session's plan (null for a team's). */
  plan(id: string): Promise<WorkflowPlan | null> {
    return this.call('plan', id, null);
  }

  /** Events after a sequence number. */
  events(id: string, after: number, limit?: number): Promise<EventsPage> {
    return this.call('events', id, { after, ...(limit !== undefined ? { limit } : {}) });
  }

  /** Every session in the index, newest first. */
  list(): Promise<IndexEntry[]> {
    return this.call('list', INDEX_KEY, null, RESTATE_NAMES.index);
  }

  /** Every session's line (its status as it is now), newest first; `matches` picks from the index first. */
  async listings(matches: (e: IndexEntry) => boolean = () => true): Promise<ListingLine[]> {
    const entries = (await this.list()).filter(matches);
    const lines: ListingLine[] = [];
    // A few at a time: each line is one call to its session.
    for (let i = 0; i < entries.length; i += 16) lines.push(...(await Promise.all(entries.slice(i, i + 16).map((e) => this.listing(e.id)))));
    return lines;
  }

  private translate(error: unknown): Error {
    const e = error as { status?: number; responseText?: string; message?: string; name?: string };
    // A handler that keeps failing is retried by Restate, not answered: say so instead of hanging.
    if (e.name === 'TimeoutError') return new RestateUnavailable(504, `Restate did not answer within ${this.timeoutMs} ms — a session handler may be failing and retrying; see the workers' output`);
    if (typeof e.status === 'number') {
      const message = errorMessage(e.responseText) ?? `HTTP ${e.status}`;
      if (REFUSED.has(e.status)) return new RequestRefused(e.status as 400, message);
      return new RestateUnavailable(502, `restate: ${message}`);
    }
    return new RestateUnavailable(503, `the Restate ingress at ${this.url} is not reachable (${(e.message ?? String(error)).split('\n')[0]}) — is restate-server running?`);
  }
}

function errorMessage(text: string | undefined): string | null {
  if (!text) return null;
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    return typeof parsed.message === 'string' ? parsed.message.split('\n')[0]! : null;
  } catch {
    return text.split('\n')[0]!.slice(0, 300);
  }
}
