import type { Server } from 'node:http';
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { listen } from '../../src/serve/listen.js';
import { clientOwners, peerLookup } from '../../src/serve/peer-user.js';
import { serveApp } from '../../src/serve/app.js';
import { server as testServer } from '../helpers/serve.js';
import { nodeScriptAs } from '../helpers/node-as-user.js';

// probe13: a server without a token trusted whoever reached it on loopback, "this machine's user": every user of
// the machine. Another local user could start sessions on this user's API key and read every session.
const asRoot = process.getuid?.() === 0;
const NOBODY = 65534;

let running: Server | null = null;
afterEach(() => {
  running?.close();
  running = null;
});

/** A GET of `url` by a Node process running as `uid`: its status and body, or the error that stopped it. */
function fetchAs(uid: number, url: string): Promise<string> {
  const script = `fetch(${JSON.stringify(url)}).then(async (r) => console.log(r.status, await r.text()), (e) => console.log('failed', e.message))`;
  return nodeScriptAs(uid, script);
}

describe('a server without a token answers only its own user', () => {
  it('reads who owns the client end of each loopback connection from /proc/net/tcp', () => {
    const table = [
      '  sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode',
      '   0: 0100007F:12C2 00000000:0000 0A 00000000:00000000 00:00000000 00000000     0        0 1 1 0 100 0 0 10 0',
      '   1: 0100007F:D431 0100007F:12C2 01 00000000:00000000 00:00000000 00000000 65534        0 2 1 0 20 4 30 10 -1',
      '   2: 0100007F:12C2 0100007F:D431 01 00000000:00000000 00:00000000 00000000     0        0 3 1 0 20 4 30 10 -1',
    ].join('\n');
    const owners = clientOwners(table);
    expect(owners.get('0100007F:D431 0100007F:12C2')).toEqual(new Set([NOBODY]));
    expect(owners.get('0100007F:12C2 0100007F:D431')).toEqual(new Set([0]));
  });

  it('lookups asked for while the tables are read wait for the next read, shared: a read at a time, not a read per connection', async () => {
    const line = (n: number, client: string, uid: number) => `   ${n}: 0100007F:${client} 0100007F:12C2 01 00000000:00000000 00:00000000 00000000 ${uid}        0 ${n} 1`;
    const table = [line(0, 'D431', 1000), line(1, 'D432', NOBODY), line(2, 'D433', 1000), line(3, 'D434', 1000)].join('\n');
    const reads: (() => void)[] = [];
    const lookUp = peerLookup(() => new Promise((resolve) => reads.push(() => resolve([table]))));
    const socket = (port: number) => ({ remoteAddress: '127.0.0.1', remotePort: port, localAddress: '127.0.0.1', localPort: 0x12c2 }) as Socket;
    const turn = () => new Promise((resolve) => setImmediate(resolve));
    const first = lookUp(socket(0xd431));
    await turn();
    expect(reads).toHaveLength(1);
    // Three connections arrive, in two turns of the loop, while the first read is under way.
    const later = [lookUp(socket(0xd432)), lookUp(socket(0xd433))];
    await turn();
    later.push(lookUp(socket(0xd434)));
    await turn();
    expect(reads).toHaveLength(1);
    reads[0]!();
    expect(await first).toBe(1000);
    await turn();
    expect(reads).toHaveLength(2);
    reads[1]!();
    expect(await Promise.all(later)).toEqual([NOBODY, 1000, 1000]);
    expect(reads).toHaveLength(2);
  });

  it.skipIf(!asRoot)('another user’s request is refused (403, one line), this user’s is answered', async () => {
    const { app } = testServer({ token: null });
    const { server, port } = await listen(app.fetch, { hostname: '127.0.0.1', port: 0 });
    running = server;
    const url = `http://127.0.0.1:${port}/v1/sessions`;
    expect(await fetchAs(NOBODY, url)).toBe(`403 {"error":"this server has no token, so it answers only its own user (uid 0), not uid ${NOBODY}; set TROUPE_SERVE_TOKEN to share it"}`);
    expect(await fetchAs(0, url)).toBe('200 {"sessions":[]}');
  });

  it.skipIf(!asRoot)('with names added for a proxy in front (TROUPE_SERVE_ALLOWED_HOSTS) it answers other users, as before', async () => {
    const { host } = testServer({ token: null });
    const app = serveApp({ host, token: null, maxBodyBytes: 4096, allowedHosts: ['troupe.example'] });
    const { server, port } = await listen(app.fetch, { hostname: '127.0.0.1', port: 0 });
    running = server;
    expect(await fetchAs(NOBODY, `http://127.0.0.1:${port}/v1/sessions`)).toBe('200 {"sessions":[]}');
  });
});
