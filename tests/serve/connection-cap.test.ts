import { spawn, type ChildProcess } from 'node:child_process';
import type { Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { defaultMaxConnections, refusalText } from '../../src/serve/connection-cap.js';
import { listen } from '../../src/serve/listen.js';
import { cleanEnv } from '../helpers/cli.js';
import { server as testServer, TOKEN, until } from '../helpers/serve.js';
import { REPO_ROOT } from '../helpers/team.js';

// probe14: 24k idle TCP connections to troupe serve used up its file descriptors; /healthz and every real client
// were refused (EMFILE) while they were held. The server now holds a capped number and closes the idle longest.

const opened: Socket[] = [];
let stop: () => void = () => undefined;
afterEach(() => {
  for (const socket of opened.splice(0)) socket.destroy();
  stop();
  stop = () => undefined;
});

/** Opens `count` connections that never send a byte; resolves once all are connected, with a count of those the server has closed. */
async function idleFlood(port: number, count: number): Promise<{ closed: () => number }> {
  let closed = 0;
  await Promise.all(
    Array.from({ length: count }, () => {
      const socket = connect(port, '127.0.0.1');
      opened.push(socket);
      socket.on('error', () => undefined);
      socket.once('close', () => (closed += 1));
      // Read what the server sends, so its close is seen.
      socket.resume();
      return new Promise<void>((resolve) => {
        socket.once('connect', () => resolve());
        socket.once('close', () => resolve());
      });
    }),
  );
  return { closed: () => closed };
}

/** The server's open connections (Node's own count). */
const connectionsOf = (server: Server) => new Promise<number>((resolve, reject) => server.getConnections((e, n) => (e ? reject(e) : resolve(n))));

/** A server capped at `maxConnections` (stopped after the test) holding one session. */
async function cappedServerWithSession(maxConnections: number) {
  const { app, host } = testServer();
  const { server, port } = await listen(app.fetch, { hostname: '127.0.0.1', port: 0, maxConnections });
  stop = () => {
    server.close();
    void host.stopAll();
  };
  const base = `http://127.0.0.1:${port}`;
  const auth = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
  const created = (await (await fetch(`${base}/v1/sessions`, { method: 'POST', headers: auth, body: JSON.stringify({ brief: 'a todo app' }) })).json()) as { id: string };
  return { server, port, base, auth, created };
}

describe('troupe serve holds a capped number of connections', () => {
  it('a flood of idle sockets closes the idle longest: /healthz and a reader connected before still answer', async () => {
    const { server, port, base, auth, created } = await cappedServerWithSession(32);
    const stream = await fetch(`${base}/v1/sessions/${created.id}/events`, { headers: auth });
    expect(stream.status).toBe(200);

    const flood = await idleFlood(port, 300);
    await until(async () => flood.closed() >= 300 - 32, 'the server to close the idle longest');
    expect(await connectionsOf(server)).toBeLessThanOrEqual(32);

    const health = await fetch(`${base}/healthz`);
    expect(health.status).toBe(200);
    // The reader was in a request all along: it was never the idle one closed, and its stream goes on.
    const reader = stream.body!.getReader();
    expect((await reader.read()).done).toBe(false);
    await reader.cancel();
  });

  it('when every held connection is in a request, a new one is answered 503 in one line and closed', async () => {
    const { port, base, auth, created } = await cappedServerWithSession(2);
    // Two readers on two connections of their own (two requests in flight cannot share one), then one more.
    const streams = await Promise.all([0, 1].map(() => fetch(`${base}/v1/sessions/${created.id}/events`, { headers: { ...auth, connection: 'keep-alive' } })));
    expect(streams.map((s) => s.status)).toEqual([200, 200]);
    const answer = await new Promise<string>((resolve) => {
      const socket = connect(port, '127.0.0.1');
      opened.push(socket);
      let text = '';
      socket.on('data', (d) => (text += d));
      socket.once('close', () => resolve(text));
      socket.on('error', () => undefined);
    });
    expect(answer).toBe(refusalText(2));
    expect(answer).toContain('this server holds 2 connections at most and all are in use; try again, or raise TROUPE_SERVE_MAX_CONNECTIONS');
    for (const s of streams) await s.body?.cancel();
  });

  it('by default holds half the open-file limit', () => {
    const limits = 'Limit                     Soft Limit           Hard Limit           Units\nMax open files            1024                 524288               files\n';
    expect(defaultMaxConnections(limits)).toBe(512);
    expect(defaultMaxConnections(limits.replace('1024 ', 'unlimited '))).toBe(65_536);
    expect(defaultMaxConnections(null)).toBe(4096);
    expect(defaultMaxConnections(limits.replace('1024 ', '20   '))).toBe(64);
  });

  it('troupe serve under a low open-file limit still answers /healthz while 300 idle sockets are held', async () => {
    // The real command in a process limited to 200 files: before the cap, the flood took them all and /healthz was refused.
    const child: ChildProcess = spawn('sh', ['-c', `ulimit -n 200 && exec "${process.execPath}" "${join(REPO_ROOT, 'dist', 'cli.js')}" serve --demo --port 0`], {
      env: cleanEnv(),
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    stop = () => child.kill('SIGKILL');
    let out = '';
    child.stdout!.on('data', (d) => (out += d));
    child.stderr!.on('data', (d) => (out += d));
    await until(async () => / connections · /.test(out) || child.exitCode !== null, 'troupe serve to print its address and limits');
    const port = Number(out.match(/http:\/\/127\.0\.0\.1:(\d+)\//)?.[1]);
    expect(out).toContain('at most 1000 sessions and 100 connections');
    await idleFlood(port, 300);
    // Accepted after the 300 (the kernel queues connections in order): refused before the cap, for want of a file.
    expect((await fetch(`http://127.0.0.1:${port}/healthz`)).status).toBe(200);
  });
});

describe('TROUPE_SERVE_MAX_CONNECTIONS', () => {
  it('must be a whole number of at least 2: one line naming it, before anything starts', async () => {
    const { runCli } = await import('../helpers/cli.js');
    const run = await runCli(['serve', '--port', '0'], cleanEnv({ TROUPE_SERVE_MAX_CONNECTIONS: 'many' }));
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('TROUPE_SERVE_MAX_CONNECTIONS must be a whole number >= 2, got "many"');
  });
});
