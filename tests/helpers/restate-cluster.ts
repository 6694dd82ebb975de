import type { Hono } from 'hono';
import { mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import { registerDeployment } from '../../src/serve/restate/admin.js';
import { RestateSessions } from '../../src/serve/restate/ingress.js';
import { LiveHub } from '../../src/serve/restate/live-hub.js';
import { restateApp } from '../../src/serve/restate/restate-app.js';
import { loadClients } from '../../src/serve/restate/sdk.js';
import { listen } from '../../src/serve/listen.js';
import { until } from './child.js';
import { FakeOpenAIServer, type FakeReply, type RecordedRequest } from './fake-openai-server.js';
import { RestateServer } from './restate-server.js';
import { TaggedScript } from './tagged-script.js';
import { TcpBalancer } from './tcp-balancer.js';
import { startWorker, type WorkerProcess } from './workers.js';
import { studio } from './team.js';

/** An event as read from the SSE stream, with its `id:` line. */
export type StreamedEvent = TroupeEvent & { id?: string };

/**
 * Everything a Restate test needs, on 127.0.0.1: a scripted OpenAI-compatible server, a restate-server from
 * node_modules, `troupe worker` processes behind one TCP balancer (registered as one deployment, sharing one data
 * directory for workspaces), and the `troupe serve --backend restate` API in-process, listening on a port of its
 * own for the deltas workers push.
 */
export class RestateCluster {
  readonly workers: WorkerProcess[] = [];
  private named = 0;

  private constructor(
    readonly fake: FakeOpenAIServer,
    readonly server: RestateServer,
    readonly balancer: TcpBalancer,
    readonly app: Hono,
    readonly dataDir: string,
    private readonly http: Server,
    private readonly env: Record<string, string>,
    private readonly args: string[],
  ) {}

  /** `script`: the fake model server's; `env` and `args`: more settings and arguments for every worker. */
  static async start(
    script: TaggedScript | ((req: RecordedRequest, index: number) => FakeReply | Promise<FakeReply>),
    workers = 2,
    env: Record<string, string> = {},
    args: string[] = [],
  ): Promise<RestateCluster> {
    const fake = await new FakeOpenAIServer(script instanceof TaggedScript ? script.reply : script).start();
    const server = await RestateServer.start();
    const balancer = await new TcpBalancer([]).start();
    const live = new LiveHub();
    const app = restateApp({ sessions: new RestateSessions(await loadClients(), server.ingressUrl), team: 'V7 Studio', def: studio().def, token: null, maxBodyBytes: 4096, pollMs: 50, live });
    const { server: http, port } = await listen(app.fetch, { hostname: '127.0.0.1', port: 0 });
    live.url = `http://127.0.0.1:${port}/live`;
    const dataDir = mkdtempSync(join(tmpdir(), 'troupe-restate-workers-'));
    const cluster = new RestateCluster(fake, server, balancer, app, dataDir, http, env, args);
    await Promise.all(Array.from({ length: workers }, () => cluster.addWorker()));
    await registerDeployment(server.adminUrl, balancer.url);
    return cluster;
  }

  /** Starts one more worker (with extra CLI arguments) and puts it behind the balancer. */
  async addWorker(args: string[] = []): Promise<WorkerProcess> {
    const worker = await startWorker(`worker-${++this.named}`, { OPENAI_BASE_URL: this.fake.baseURL, TROUPE_MODEL: 'test-model', TROUPE_RETRIES: '0', TROUPE_DATA_DIR: this.dataDir, ...this.env }, [
      ...this.args,
      ...args,
    ]);
    this.workers.push(worker);
    this.balancer.backends.push(worker.port);
    return worker;
  }

  /** Calls the API (JSON in and out). */
  call(path: string, init: RequestInit & { json?: unknown } = {}): Promise<Response> {
    return Promise.resolve(
      this.app.request(path, {
        ...init,
        headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string> | undefined) },
        ...(init.json !== undefined ? { body: JSON.stringify(init.json), method: init.method ?? 'POST' } : {}),
      }),
    );
  }

  /** Creates a session (a team's on a brief, or a request body); its id. */
  async create(brief: string | Record<string, unknown>): Promise<string> {
    const response = await this.call('/v1/sessions', { json: typeof brief === 'string' ? { brief } : brief });
    if (response.status !== 201) throw new Error(`create: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { id: string }).id;
  }

  /** Waits until the session's view satisfies `check`. */
  async waitFor(id: string, check: (view: Record<string, unknown>) => boolean): Promise<Record<string, unknown>> {
    let view: Record<string, unknown> = {};
    await until(`session ${id}`, async () => {
      const response = await this.call(`/v1/sessions/${id}`);
      if (!response.ok) return false;
      view = (await response.json()) as Record<string, unknown>;
      return check(view);
    });
    return view;
  }

  /** Reads the session's SSE stream (from `after`) until `done` holds for the events read. */
  async stream(id: string, done: (events: StreamedEvent[]) => boolean, after?: string): Promise<StreamedEvent[]> {
    return (await this.connect(id, after)).read(done);
  }

  /**
   * Opens a session's event stream and resolves once the server has answered (it listens for live events before it
   * answers): events published after this resolves reach `read`, live-only ones (predictions, deltas) included.
   */
  async connect(id: string, after?: string): Promise<{ read: (done: (events: StreamedEvent[]) => boolean) => Promise<StreamedEvent[]> }> {
    const response = await this.call(`/v1/sessions/${id}/events`, after ? { headers: { 'Last-Event-ID': after } } : {});
    if (!response.ok) throw new Error(`events: ${response.status} ${await response.text()}`);
    const reader = response.body!.getReader();
    const read = async (done: (events: StreamedEvent[]) => boolean): Promise<StreamedEvent[]> => {
      const decoder = new TextDecoder();
      let buffer = '';
      const events: StreamedEvent[] = [];
      while (!done(events)) {
        const { done: ended, value } = await reader.read();
        if (ended) break;
        buffer += decoder.decode(value, { stream: true });
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end).split('\n');
          buffer = buffer.slice(end + 2);
          const data = block.find((l) => l.startsWith('data: '));
          const line = block.find((l) => l.startsWith('id: '));
          if (data) events.push({ ...JSON.parse(data.slice(6)), ...(line ? { id: line.slice(4) } : {}) });
        }
      }
      await reader.cancel();
      return events;
    };
    return { read };
  }

  /** Stops every process it started. */
  async stop(): Promise<void> {
    await Promise.all(this.workers.map((w) => w.child.kill('SIGKILL')));
    await this.balancer.stop();
    await this.server.stop();
    await this.fake.stop();
    await new Promise((resolve) => this.http.close(resolve));
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
