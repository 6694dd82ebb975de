import { readFile } from 'node:fs/promises';
import type { Socket } from 'node:net';
import { endianness } from 'node:os';
import type { Context, MiddlewareHandler } from 'hono';

// Without a token the server trusts whoever reaches it, and on loopback that is every user of this machine, not
// only the one who started it: another local user ran sessions on this user's API key and read every session.
// Linux says who owns the other end of a loopback connection: the client's socket is in /proc/net/tcp (its local
// port is the server's remote one and the other way round), with its owner's uid.

/**
 * The owners of each connection's client end in a /proc/net/tcp (or tcp6) table, by `<client address>:<port>
 * <server address>:<port>` in hex as the table writes them; with `wanted`, only those keys. The addresses count: by
 * its ports alone another user's socket bound to 127.0.0.2 on the port of one of this user's connections (the table
 * is world-readable) made two owners for one key, which told no one apart, and the server answered it. A table holds a line per socket of the machine (two
 * per loopback connection) and is read whole for each batch of lookups: only a wanted line is split into its fields,
 * the others are passed over once their ports are found (splitting them all was most of what a thousand connections
 * arriving cost the server).
 */
export function clientOwners(table: string, wanted?: ReadonlySet<string>): Map<string, Set<number>> {
  const owners = new Map<string, Set<number>>();
  for (let start = 0; start < table.length; ) {
    let end = table.indexOf('\n', start);
    if (end < 0) end = table.length;
    const line = start;
    start = end + 1;
    // `<sl>: <local address>:<port> <remote address>:<port> ...`
    const local = table.indexOf(': ', line) + 2;
    const localEnd = table.indexOf(' ', local);
    const remoteEnd = table.indexOf(' ', localEnd + 1);
    if (local < 2 || remoteEnd < 0 || remoteEnd > end || table[localEnd - 5] !== ':' || table[remoteEnd - 5] !== ':') continue;
    const key = table.slice(local, remoteEnd);
    if (wanted && !wanted.has(key)) continue;
    // sl local_address rem_address st tx:rx tr:when retrnsmt uid ...
    const uid = Number(table.slice(line, end).trim().split(/\s+/)[7]);
    if (!Number.isInteger(uid)) continue;
    owners.set(key, (owners.get(key) ?? new Set()).add(uid));
  }
  return owners;
}

/** A lookup waiting for the next read of the tables. */
type Lookup = { socket: Socket; resolve: (uid: number | null) => void };

const hex = (port: number) => port.toString(16).toUpperCase().padStart(4, '0');

/** An IP address's 16 bytes (an IPv4 one as IPv4-mapped), or null when it is not one written plainly. */
function ipBytes(ip: string): number[] | null {
  const v4 = /^(?:::ffff:)?(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/i.exec(ip);
  if (v4) return [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 255, 255, ...v4.slice(1, 5).map(Number)];
  const [head = '', tail, more] = ip.split('::');
  if (more !== undefined || !/^[0-9a-f:]+$/i.test(ip)) return null;
  const words = (part: string) => (part === '' ? [] : part.split(':').map((w) => Number.parseInt(w, 16)));
  const [h, t] = [words(head), words(tail ?? '')];
  const all = tail === undefined ? h : [...h, ...new Array<number>(Math.max(0, 8 - h.length - t.length)).fill(0), ...t];
  return all.length === 8 ? all.flatMap((w) => [w >> 8, w & 255]) : null;
}

// The tables write each 32-bit word of an address as the host holds it.
const littleEndian = endianness() === 'LE';
const word = (b: number[], at: number) => (littleEndian ? [b[at + 3]!, b[at + 2]!, b[at + 1]!, b[at]!] : b.slice(at, at + 4));
const hexBytes = (b: number[]) => b.map((x) => x.toString(16).toUpperCase().padStart(2, '0')).join('');

/** An address as the tables write it: as /proc/net/tcp does (an IPv4 one) and as tcp6 does. */
function tableAddresses(ip: string | undefined): string[] {
  const b = ip === undefined ? null : ipBytes(ip);
  if (!b) return [];
  const v6 = hexBytes([...word(b, 0), ...word(b, 4), ...word(b, 8), ...word(b, 12)]);
  const mapped = b.slice(0, 10).every((x) => x === 0) && b[10] === 255 && b[11] === 255;
  return mapped ? [hexBytes(word(b, 12)), v6] : [v6];
}

/** A connection's keys in the tables (see clientOwners): its client end as the IPv4 table and the IPv6 one would write it; none when not known. */
function keysOf(socket: Socket): string[] {
  const { remotePort, localPort } = socket;
  if (remotePort === undefined || localPort === undefined) return [];
  const client = tableAddresses(socket.remoteAddress);
  const server = tableAddresses(socket.localAddress);
  // Both IPv4: written both ways (a socket of the IPv4 table, or IPv4-mapped in tcp6); else as tcp6 writes them.
  const pairs = client.length === 2 && server.length === 2 ? [0, 1].map((i) => [client[i], server[i]]) : [[client.at(-1), server.at(-1)]];
  return pairs.flatMap(([c, s]) => (c && s ? [`${c}:${hex(remotePort)} ${s}:${hex(localPort)}`] : []));
}

/** The owner of each lookup's client end, from the tables `read` gives. */
async function answer(batch: readonly Lookup[], read: () => Promise<string[]>): Promise<void> {
  const keys = new Map(batch.map(({ socket }) => [socket, keysOf(socket)]));
  const wanted = new Set([...keys.values()].flat());
  const owners = new Map<string, Set<number>>();
  for (const table of await read()) for (const [key, uids] of clientOwners(table, wanted)) owners.set(key, new Set([...(owners.get(key) ?? []), ...uids]));
  for (const { socket, resolve } of batch) {
    const found = new Set((keys.get(socket) ?? []).flatMap((key) => [...(owners.get(key) ?? [])]));
    // Two sockets of one pair of addresses and ports with different owners (one gone, another made): no one answer.
    resolve(found.size === 1 ? [...found][0]! : null);
  }
}

/**
 * Looks up the owners of connections' client ends with `read` (the tables' text), one read at a time: the lookups
 * asked for while one is read share the next. A read per turn of the loop that had a connection arrive was a read
 * per connection at 1,000 connections arriving on a busy server (each tables' text a few hundred kilobytes, half of
 * everything the server allocated), each a few calls on the thread pool queued behind the sessions' writes.
 */
export function peerLookup(read: () => Promise<string[]>): (socket: Socket) => Promise<number | null> {
  let waiting: Lookup[] = [];
  let reading = false;
  const next = (): void => {
    if (reading || waiting.length === 0) return;
    reading = true;
    const batch = waiting;
    waiting = [];
    void answer(batch, read)
      .catch(() => {
        for (const { resolve } of batch) resolve(null);
      })
      .finally(() => {
        reading = false;
        next();
      });
  };
  return (socket) =>
    new Promise((resolve) => {
      waiting.push({ socket, resolve });
      // The lookups of this turn of the loop go together.
      if (waiting.length === 1) setImmediate(next);
    });
}

const PROC_TABLES = ['/proc/net/tcp', '/proc/net/tcp6'];
const lookUp = peerLookup(() => Promise.all(PROC_TABLES.map((file) => readFile(file, 'utf8').catch(() => ''))));

const known = new WeakMap<Socket, Promise<number | null>>();
/** The uid owning the client end of a connection this server accepted (looked up once per connection), or null when the system does not say (not Linux, another network namespace). */
export function peerUid(socket: Socket): Promise<number | null> {
  let uid = known.get(socket);
  if (!uid) {
    uid = lookUp(socket);
    known.set(socket, uid);
  }
  return uid;
}

/**
 * The guard of a server without a token: a request whose connection belongs to another user of this machine
 * (root's excepted: root reads this user's files anyway) is refused with 403. One whose owner the system does
 * not say goes on, as before. `socketOf` finds the request's connection (none: a request not from the network).
 */
export function thisUserOnly(uid: number | null, socketOf: (c: Context) => Socket | undefined): MiddlewareHandler {
  return async (c, next) => {
    const socket = socketOf(c);
    if (uid !== null && socket) {
      const owner = await peerUid(socket);
      if (owner !== null && owner !== uid && owner !== 0) {
        return c.json({ error: `this server has no token, so it answers only its own user (uid ${uid}), not uid ${owner}; set TROUPE_SERVE_TOKEN to share it` }, 403);
      }
    }
    await next();
  };
}
