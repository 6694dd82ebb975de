import { randomUUID } from 'node:crypto';
import type { SessionState } from '../engine/session.js';
import type { ChatModel } from '../llm/chat-model.js';
import type { OpenTeam } from '../team/open-team.js';
import { openSession } from '../session/open-session.js';
import type { TroupeSession } from '../session/troupe-session.js';
import { forkSession } from '../store/fork.js';
import type { Store } from '../store/store.js';
import type { WorkflowPlan } from '../workflow/run/plan.js';
import { UserError } from '../errors.js';
import { isWorkflowPath } from '../workflow/load/locate.js';
import { inputProblem } from '../workflow/run/frames.js';
import { loadPriceTable, type PriceTable } from '../usage/price-table.js';
import { UsageMeter } from '../usage/usage-meter.js';
import { loadTokenizer } from '../memory/tokens.js';
import { EventFeed } from './event-feed.js';

/** A request the server refuses, with the HTTP status that says why. */
export class RequestRefused extends UserError {
  constructor(
    readonly status: 400 | 403 | 404 | 409 | 413 | 415 | 429,
    message: string,
  ) {
    super(message);
  }
}

/** What the host needs: where sessions are stored, the team, models, workflows, limits. */
export interface HostOptions {
  store: Store;
  team: OpenTeam;
  teamDir: string;
  /** The model for a session (a demo resumed from the store continues its story). */
  model: (stored: { events: () => Promise<import('../engine/event-map.js').TroupeEvent[]> } | null) => Promise<ChatModel> | ChatModel;
  /** Workflows the server may run, by name (and the list of them the console offers). */
  workflows?: { load(name: string): WorkflowPlan; list?(): { name: string; description: string }[] };
  /** Workflows whose agents turn their commands' network on may run (`troupe serve --allow-network`); otherwise refused (400, one line). */
  allowNetwork?: boolean;
  /** Requests may name a workflow by path (`troupe serve --allow-workflow-paths`); otherwise only by name. */
  allowWorkflowPaths?: boolean;
  /** Most sessions running in this process at once. */
  maxSessions: number;
  env: Record<string, string | undefined>;
  clock?: () => number;
  /** The sandbox threads workflow sessions share: started with the server when it offers workflows, not by the first session's request. */
  sandbox?: { warm(): void };
}

/** The sessions one server runs: created on request, reopened from the store when input comes for one, let go once over. */
export class SessionHost {
  private readonly hosted = new Map<string, TroupeSession>();
  private readonly feeds = new Map<string, EventFeed>();
  private readonly opening = new Map<string, Promise<TroupeSession>>();
  // Sessions being let go of: their last checkpoint is written off the event loop, and until it is (and the
  // session is closed) this process still holds them, so one is reopened only after.
  private readonly releasing = new Map<string, Promise<void>>();
  private prices: PriceTable | null = null;

  constructor(readonly options: HostOptions) {
    if (options.workflows) options.sandbox?.warm();
    // Loaded as the server starts (in the background, after this task), not by the first session's first count:
    // building it holds the event loop 0.2-0.5 s, which mid-turn stalled every session and reader of the server.
    void loadTokenizer();
  }

  /** A meter for a new, reopened or stored session; the price table is read once per server, not per session. */
  meter(): UsageMeter {
    this.prices ??= loadPriceTable(this.options.env);
    return new UsageMeter(this.prices);
  }

  /** Sessions running here now. */
  get running(): number {
    return this.hosted.size;
  }

  /** Whether a session is running here. */
  has(id: string): boolean {
    return this.hosted.has(id);
  }

  /** The running session, if it runs here. */
  get(id: string): TroupeSession | undefined {
    return this.hosted.get(id);
  }

  /** The status of a session running here (its live snapshot's), or null when it does not run here. */
  statusOf(id: string): SessionState['status'] | null {
    return this.hosted.get(id)?.getSnapshot().status ?? null;
  }

  /**
   * The SSE feed of a session (its events serialised once for all its readers): made when the session runs
   * here or a reader asks; a feed with readers outlives the session's stay here and follows it again when it
   * is opened again (its readers keep their connection across a release and a reopen).
   */
  feed(id: string): EventFeed {
    let feed = this.feeds.get(id);
    if (!feed) {
      feed = new EventFeed(() => this.feeds.delete(id));
      this.feeds.set(id, feed);
    }
    const session = this.hosted.get(id);
    if (session && !feed.follows(session)) feed.follow(session);
    return feed;
  }

  private room(): void {
    if (this.hosted.size + this.opening.size >= this.options.maxSessions) {
      throw new RequestRefused(429, `this server runs ${this.options.maxSessions} sessions at most; try again once one ends`);
    }
  }

  private adopt(session: TroupeSession): TroupeSession {
    this.hosted.set(session.id, session);
    // Readers waiting for the session to run here again are fed from now on.
    this.feeds.get(session.id)?.follow(session);
    // An ended session is let go of (it stays in the store); so is one the user left.
    session.subscribe((e) => {
      if (e.type === 'session_ended' || (e.type === 'session_detached' && e.reason === 'user_left')) void this.release(session.id);
    });
    return session;
  }

  /** Starts a new session on a brief (team) or an input (workflow). */
  async create(request: { brief?: string; workflow?: string; input?: string; mode?: 'fsm' | 'simple'; models?: { base?: string; smart?: string; fast?: string } }): Promise<TroupeSession> {
    this.room();
    const o = this.options;
    let workflow: WorkflowPlan | undefined;
    if (request.workflow !== undefined) {
      if (!o.workflows) throw new RequestRefused(400, 'this server runs no workflows');
      // A path would run any workflow file the server can read: only its named workflows run, unless it was started to allow paths.
      if (!o.allowWorkflowPaths && isWorkflowPath(request.workflow)) {
        throw new RequestRefused(
          403,
          "workflow: give the name of one of this server's workflows (troupe workflows lists them), not a path; paths run only on a server started with troupe serve --allow-workflow-paths",
        );
      }
      workflow = o.workflows.load(request.workflow);
      const refused = inputProblem(workflow, request.input ?? request.brief ?? '');
      if (refused) throw new RequestRefused(400, `input: ${refused}`);
    }
    const session = await openSession({
      team: o.team,
      teamDir: o.teamDir,
      model: await o.model(null),
      store: o.store,
      env: o.env,
      meter: this.meter(),
      ...(request.models ? { tiers: request.models } : {}),
      ...(workflow ? { workflow } : {}),
      ...(request.mode ? { mode: request.mode } : {}),
      ...(o.clock ? { clock: o.clock } : {}),
      allowNetwork: o.allowNetwork ?? false,
      brief: request.brief ?? request.input ?? '',
    });
    this.adopt(session).start(request.brief ?? request.input ?? '');
    return session;
  }

  /** The session, running here: reopened from the store (and continued where it stopped) when it is not. */
  async open(id: string): Promise<TroupeSession> {
    const hosted = this.hosted.get(id);
    if (hosted) return hosted;
    const pending = this.opening.get(id);
    if (pending) return pending;
    this.room();
    const o = this.options;
    const released = this.releasing.get(id);
    const opening = (released ?? Promise.resolve())
      .then(() =>
        openSession({
          store: o.store,
          resume: id,
          team: o.team,
          teamDir: o.teamDir,
          env: o.env,
          model: o.model,
          meter: this.meter(),
          allowNetwork: o.allowNetwork ?? false,
          ...(o.clock ? { clock: o.clock } : {}),
        }),
      )
      .then((session) => {
        this.adopt(session).resume();
        return session;
      });
    this.opening.set(id, opening);
    try {
      return await opening;
    } finally {
      this.opening.delete(id);
    }
  }

  /** Forks a stored session at a journal step into a new session (the source is only read) and runs it here from there. */
  async fork(id: string, step: number): Promise<TroupeSession> {
    this.room();
    const now = new Date((this.options.clock ?? Date.now)()).toISOString();
    const doc = await forkSession(this.options.store, { from: id, step, id: randomUUID(), now });
    return this.open(doc.id);
  }

  /** Lets go of a session: detached (resumable), saved, removed from this process. */
  async release(id: string, detach?: { reason: string }): Promise<void> {
    const session = this.hosted.get(id);
    if (!session) return;
    this.hosted.delete(id);
    const stopped = session.stop(detach).then(
      () => undefined,
      () => undefined,
    );
    this.releasing.set(id, stopped);
    await stopped;
    if (this.releasing.get(id) === stopped) this.releasing.delete(id);
    // Its readers stay (their feed follows it again when it is opened again); a feed with none goes.
    this.feeds.get(id)?.unfollow();
  }

  /** Lets go of every session (the server stops): each is saved and stays resumable. */
  async stopAll(): Promise<void> {
    await Promise.all([...this.hosted.keys()].map((id) => this.release(id, { reason: 'server_stopped' })));
    for (const feed of [...this.feeds.values()]) feed.end();
  }
}
