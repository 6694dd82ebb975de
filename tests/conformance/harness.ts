import { isLiveOnly } from '../../src/kernel/session-kernel.js';
import { cpSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Hono } from 'hono';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import { modelFromEnv } from '../../src/llm/from-env.js';
import { openTeam } from '../../src/team/open-team.js';
import { serveApp } from '../../src/serve/app.js';
import { SessionHost } from '../../src/serve/host.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { loadWorkflowOrThrow } from '../../src/workflow/load/load-workflow.js';
import { until } from '../helpers/child.js';
import type { FakeReply, RecordedRequest } from '../helpers/fake-openai-server.js';
import { readEvents } from '../helpers/serve.js';
import { REPO_ROOT } from '../helpers/team.js';

/** A model server's script: an answer (or a promise of one) for each request. */
export type Script = (req: RecordedRequest, index: number) => FakeReply | Promise<FakeReply>;

/**
 * The fake model server's handler, whose script each scenario replaces (one server serves every backend, so
 * the model label every session records is the same); it keeps the requests of the current script.
 */
export class SwitchableScript {
  private script: Script = () => ({ status: 500, body: { error: { message: 'no scenario is running' } } });
  requests: RecordedRequest[] = [];

  readonly handler: Script = (req, index) => {
    this.requests.push(req);
    return this.script(req, index);
  };

  /** Starts a scenario's script (its request log starts empty). */
  use(script: Script): void {
    this.script = script;
    this.requests = [];
  }
}

/** A backend as the suite drives it: the HTTP API of `troupe serve` (embedded or on Restate). */
export interface Backend {
  readonly name: string;
  call(path: string, init?: RequestInit & { json?: unknown }): Promise<Response>;
  stop(): Promise<void>;
}

/** Calls a Hono app in-process with JSON in and out. */
export function caller(app: Hono): Backend['call'] {
  return (path, init = {}) =>
    Promise.resolve(
      app.request(path, {
        ...init,
        headers: { 'content-type': 'application/json', ...(init.headers as Record<string, string> | undefined) },
        ...(init.json !== undefined ? { body: JSON.stringify(init.json), method: init.method ?? 'POST' } : {}),
      }),
    );
}

/**
 * The team the suite runs: the shipped studio, copied with memory compression out of reach (a summary call runs
 * beside the persona turns on the embedded backend, so where its events fall is a race there); the Restate
 * tests cover compression on their own.
 */
export function conformanceTeam(): { dir: string; remove: () => void } {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'troupe-conformance-team-')));
  cpSync(join(REPO_ROOT, 'personas'), join(dir, 'personas'), { recursive: true });
  cpSync(join(REPO_ROOT, 'prompts'), join(dir, 'prompts'), { recursive: true });
  const file = join(dir, 'personas', 'team.json');
  const team = JSON.parse(readFileSync(file, 'utf8')) as { memory: { compress_every: number } };
  team.memory.compress_every = 1_000;
  writeFileSync(file, JSON.stringify(team, null, 2));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The model settings both backends run with (`OPENAI_BASE_URL` of the one fake server; no retries). */
export const modelEnv = (baseURL: string): Record<string, string> => ({ OPENAI_BASE_URL: baseURL, TROUPE_MODEL: 'test-model', TROUPE_RETRIES: '0' });

/** The embedded backend: `troupe serve`'s app in this process, on a store in a temporary directory. */
export function embeddedBackend(teamDir: string, baseURL: string): Backend {
  const data = realpathSync(mkdtempSync(join(tmpdir(), 'troupe-conformance-data-')));
  const env = modelEnv(baseURL);
  const team = openTeam(teamDir, {}, env);
  const host = new SessionHost({
    store: new LowdbStore(data),
    team,
    teamDir,
    env,
    maxSessions: 100,
    model: () => modelFromEnv(env),
    workflows: { load: (name) => loadWorkflowOrThrow(name, { cwd: REPO_ROOT, env, team: team.loaded }) },
    // The suite's own workflows are files of its own.
    allowWorkflowPaths: true,
  });
  const app = serveApp({ host, token: null, maxBodyBytes: 64 * 1024, keepAliveMs: 60_000 });
  return {
    name: 'embedded',
    call: caller(app),
    stop: async () => {
      await host.stopAll();
      rmSync(data, { recursive: true, force: true });
    },
  };
}

/** What a scenario does with a backend: create sessions, type lines, read events. */
export class Driver {
  constructor(
    readonly backend: Backend,
    readonly model: SwitchableScript,
  ) {}

  /** Creates a session; its id. */
  async create(body: Record<string, unknown>): Promise<string> {
    const response = await this.backend.call('/v1/sessions', { json: body });
    if (response.status !== 201) throw new Error(`${this.backend.name}: create: ${response.status} ${await response.text()}`);
    return ((await response.json()) as { id: string }).id;
  }

  /** Types a line; the answer's status and body. */
  async input(id: string, text: string): Promise<{ status: number; body: unknown }> {
    const response = await this.backend.call(`/v1/sessions/${id}/input`, { json: { text } });
    return { status: response.status, body: await response.json() };
  }

  /** The session's stored events (live-only ones, streamed deltas and predictions, left out) once `done` holds for them. */
  async until(id: string, done: (events: TroupeEvent[]) => boolean): Promise<TroupeEvent[]> {
    const stored = (es: TroupeEvent[]) => es.filter((e) => !isLiveOnly(e.type));
    const response = await this.backend.call(`/v1/sessions/${id}/events`);
    if (!response.ok) throw new Error(`${this.backend.name}: events: ${response.status} ${await response.text()}`);
    return stored(await readEvents(response, (es) => done(stored(es))));
  }

  /** Waits until the model server got a request matching `match`; that request. */
  async request(what: string, match: (req: RecordedRequest) => boolean): Promise<RecordedRequest> {
    let found: RecordedRequest | undefined;
    await until(what, () => (found = this.model.requests.find(match)) !== undefined);
    return found!;
  }
}

/** One scenario: the model server's script, and what is done through the API; it returns the session's events. */
export interface Scenario {
  name: string;
  script: () => Script;
  run(driver: Driver): Promise<TroupeEvent[]>;
  /** What must hold of the events on every backend (beyond being the same on both). */
  check(events: TroupeEvent[], driver: Driver): void;
}

/**
 * The events as compared across backends: without `at` (apart from timestamps), `seq`, the stream's `id` and
 * `session_id` (checked on their own), the session id inside texts, and the model server's port in the model label.
 */
export function comparable(events: readonly TroupeEvent[]): unknown[] {
  const id = events[0]?.session_id ?? '';
  const plain = events.map(
    ({ at: _at, seq: _seq, session_id: _sid, id: _id, ...rest }: TroupeEvent & { id?: string }) =>
      JSON.parse(
        JSON.stringify(rest)
          .replaceAll(id, '<session>')
          .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>'),
      ) as Record<string, unknown>,
  );
  return plain;
}

/** Sequence numbers run 1, 2, 3 … with no gap or repeat. */
export function gapless(events: readonly TroupeEvent[]): boolean {
  return events.every((e, i) => e.seq === i + 1);
}
