import type { Server } from 'node:http';
import { connect, type Socket } from 'node:net';
import { endianness } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { listen } from '../../src/serve/listen.js';
import { clientOwners, peerLookup } from '../../src/serve/peer-user.js';
import { server as testServer } from '../helpers/serve.js';
import { nodeScriptAs } from '../helpers/node-as-user.js';

// probe16: a server without a token (and a Restate worker without identity keys) answers only its own user, by the
// owner of the connection's client end in /proc/net/tcp — found by its ports alone. Another user who binds
// 127.0.0.2 on the client port of one of this user's connections (the table is world-readable; Restate holds its
// connection to a worker open) makes two owners for those ports, and a lookup that found two answered as one it
// could not tell: the other user was served.
const asRoot = process.getuid?.() === 0;
const NOBODY = 65534;
let running: Server | null = null;
const held: Socket[] = [];
afterEach(() => {
  running?.close();
  running = null;
  for (const s of held.splice(0)) s.destroy();
});

/** A GET of `path` on 127.0.0.1:`port` by a Node process running as `uid`, from `from` (address and port): the status line, or how it failed. */
function getFromAs(uid: number, port: number, path: string, from: { address: string; port: number }): Promise<string> {
  const script = `
    const s = require('node:net').connect({ host: '127.0.0.1', port: ${port}, localAddress: ${JSON.stringify(from.address)}, localPort: ${from.port} });
    let got = '';
    s.on('connect', () => s.write('GET ${path} HTTP/1.1\\r\\nHost: 127.0.0.1\\r\\nConnection: close\\r\\n\\r\\n'));
    s.on('data', (d) => { got += d; });
    s.on('end', () => console.log(got.split('\\r\\n')[0]));
    s.on('error', (e) => console.log('failed', e.code));`;
  return nodeScriptAs(uid, script);
}

describe('who owns a connection is told by its addresses as well as its ports', () => {
  it('two client sockets on the same ports from two addresses: each has its own owner', () => {
    // 127.0.0.1:D431 (uid 0) and 127.0.0.2:D431 (uid 65534), both to 127.0.0.1:12C2.
    const table = [
      '   1: 0100007F:D431 0100007F:12C2 01 00000000:00000000 00:00000000 00000000     0        0 2 1 0 20 4 30 10 -1',
      '   2: 0200007F:D431 0100007F:12C2 01 00000000:00000000 00:00000000 00000000 65534        0 3 1 0 20 4 30 10 -1',
    ].join('\n');
    const lookUp = peerLookup(async () => [table]);
    const socket = (address: string) => ({ remoteAddress: address, remotePort: 0xd431, localAddress: '127.0.0.1', localPort: 0x12c2 }) as Socket;
    return Promise.all([lookUp(socket('127.0.0.1')), lookUp(socket('::ffff:127.0.0.2'))]).then((owners) => {
      expect(owners).toEqual([0, NOBODY]);
      expect(clientOwners(table).size).toBe(2);
    });
  });

  it('an IPv6 loopback connection is found in tcp6 as the kernel writes it (each 32-bit word as the host holds it)', async () => {
    const word = endianness() === 'LE' ? '01000000' : '00000001';
    const table6 = `   0: 000000000000000000000000${word}:D431 000000000000000000000000${word}:12C2 01 00000000:00000000 00:00000000 00000000  1000        0 2 1 0 20 4 30 10 -1`;
    const lookUp = peerLookup(async () => [table6]);
    expect(await lookUp({ remoteAddress: '::1', remotePort: 0xd431, localAddress: '::1', localPort: 0x12c2 } as Socket)).toBe(1000);
  });

  it.skipIf(!asRoot)('another user binding 127.0.0.2 on the port of this user’s open connection is refused (403), not served', async () => {
    const { app } = testServer({ token: null });
    const { server, port } = await listen(app.fetch, { hostname: '127.0.0.1', port: 0 });
    running = server;
    const mine = connect(port, '127.0.0.1');
    held.push(mine);
    await new Promise<void>((resolve) => mine.once('connect', () => resolve()));
    const line = await getFromAs(NOBODY, port, '/v1/sessions', { address: '127.0.0.2', port: mine.localPort! });
    expect(line).toBe('HTTP/1.1 403 Forbidden');
  });
});
