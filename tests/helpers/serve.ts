import type { ChatModel } from '../../src/llm/chat-model.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import { serveApp } from '../../src/serve/app.js';
import { SessionHost } from '../../src/serve/host.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import { loadWorkflowOrThrow } from '../../src/workflow/load/load-workflow.js';
import { REPO_ROOT, studio } from './team.js';

/** The bearer token the test servers require. */
export const TOKEN = 'serve-test-token-123456';

/** A `troupe serve` app on an in-memory store (the shipped team and workflows, the demo model unless given), and a request helper. */
export function server(options: { model?: () => ChatModel; maxSessions?: number; token?: string | null; env?: Record<string, string> } = {}) {
  const store = new MemoryStore();
  const team = studio();
  const workflows = { load: (name: string) => loadWorkflowOrThrow(name, { cwd: REPO_ROOT, team: team.loaded }) };
  const host = new SessionHost({
    store,
    team,
    teamDir: REPO_ROOT,
    env: { TROUPE_MODEL: 'test-model', ...options.env },
    maxSessions: options.maxSessions ?? 10,
    model: options.model ?? (() => new DemoModel()),
    workflows,
  });
  const app = serveApp({ host, token: options.token === undefined ? TOKEN : options.token, maxBodyBytes: 4096, keepAliveMs: 60_000 });
  const call = (path: string, init: RequestInit & { json?: unknown } = {}) =>
    app.request(path, {
      ...init,
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json', ...(init.headers as Record<string, string> | undefined) },
      ...(init.json !== undefined ? { body: JSON.stringify(init.json), method: init.method ?? 'POST' } : {}),
    });
  return { app, host, store, call };
}

/** Reads an SSE response until `until` holds for the events read so far (or the stream ends). */
export async function readEvents(response: Response, until: (events: (TroupeEvent & { id?: string })[]) => boolean): Promise<(TroupeEvent & { id?: string })[]> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  const events: (TroupeEvent & { id?: string })[] = [];
  while (!until(events)) {
    const { done, value } = await reader.read();
    if (done) break;
    buffer += decoder.decode(value, { stream: true });
    let end: number;
    while ((end = buffer.indexOf('\n\n')) >= 0) {
      const block = buffer.slice(0, end);
      buffer = buffer.slice(end + 2);
      const data = block.split('\n').find((l) => l.startsWith('data: '));
      const id = block.split('\n').find((l) => l.startsWith('id: '));
      if (data) events.push({ ...JSON.parse(data.slice(6)), ...(id ? { id: id.slice(4) } : {}) });
    }
  }
  await reader.cancel();
  return events;
}

/** Waits until `check` holds, looking every 10 ms, at most 2,000 looks (a count, not a clock); throws naming `what`. */
export async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let tries = 0; !(await check()); tries++) {
    if (tries > 2_000) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
