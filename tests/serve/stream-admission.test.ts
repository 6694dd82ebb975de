import type { IncomingMessage, ServerResponse } from 'node:http';
import { describe, expect, it } from 'vitest';
import { admitStreamsInSlices, isEventStream } from '../../src/serve/stream-admission.js';

const request = (method: string, url: string, gone = false) => [{ method, url, socket: { destroyed: gone } } as unknown as IncomingMessage, { destroyed: gone } as unknown as ServerResponse] as const;
const turns = async (n: number) => {
  for (let i = 0; i < n; i++) await new Promise((r) => setImmediate(r));
};

describe('event-stream requests are handled in slices of the loop', () => {
  it('knows an event-stream request by method and path', () => {
    expect(isEventStream(request('GET', '/v1/sessions/abc/events')[0])).toBe(true);
    expect(isEventStream(request('GET', '/v1/sessions/abc/events?after=3&access_token=x')[0])).toBe(true);
    expect(isEventStream(request('POST', '/v1/sessions/abc/events')[0])).toBe(false);
    expect(isEventStream(request('GET', '/v1/sessions/abc/events/more')[0])).toBe(false);
    expect(isEventStream(request('GET', '/v1/sessions/abc')[0])).toBe(false);
    expect(isEventStream(request('GET', '/healthz')[0])).toBe(false);
  });

  it('a burst of streams read in one task waits for the check phase; a health check read among them is answered at once', async () => {
    const handled: string[] = [];
    const listener = admitStreamsInSlices((incoming) => {
      handled.push(incoming.url!);
      return Promise.resolve();
    });
    for (let i = 0; i < 300; i++) listener(...request('GET', `/v1/sessions/s${i}/events`));
    listener(...request('GET', '/healthz'));
    // In the task that read them (the poll phase), only the health check ran.
    expect(handled).toEqual(['/healthz']);
    await Promise.resolve();
    expect(handled).toEqual(['/healthz']);
    await turns(300);
    expect(handled).toHaveLength(301);
    // In the order they came.
    expect(handled.slice(1, 4)).toEqual(['/v1/sessions/s0/events', '/v1/sessions/s1/events', '/v1/sessions/s2/events']);
  });

  it('a stream whose client left while it waited is not handled', async () => {
    const handled: string[] = [];
    const listener = admitStreamsInSlices((incoming) => void handled.push(incoming.url!));
    listener(...request('GET', '/v1/sessions/a/events', true));
    listener(...request('GET', '/v1/sessions/b/events'));
    await turns(3);
    expect(handled).toEqual(['/v1/sessions/b/events']);
  });

  it('a stream that has written its head (its handler settles only when the stream ends) lets the next one start in the same slice', async () => {
    const handled: string[] = [];
    const listener = admitStreamsInSlices((incoming, outgoing) => {
      handled.push(incoming.url!);
      outgoing.writeHead(200);
      return new Promise(() => undefined);
    });
    const streaming = (url: string) => {
      const [incoming, outgoing] = request('GET', url);
      const response = outgoing as unknown as { headersSent: boolean; writeHead: (status: number) => unknown };
      response.headersSent = false;
      response.writeHead = () => {
        response.headersSent = true;
        return response;
      };
      return [incoming, outgoing] as const;
    };
    listener(...streaming('/v1/sessions/a/events'));
    listener(...streaming('/v1/sessions/b/events'));
    // The check phase that admits the first admits the second: it waits for no turn of the loop.
    await turns(1);
    expect(handled).toEqual(['/v1/sessions/a/events', '/v1/sessions/b/events']);
  });

  it('a handler waiting on I/O holds its slice until the next turn at most', async () => {
    const handled: string[] = [];
    const listener = admitStreamsInSlices((incoming) => {
      handled.push(incoming.url!);
      // Never settles (a store read that takes long): the next stream is still handled.
      return incoming.url!.includes('/slow/') ? new Promise(() => undefined) : undefined;
    });
    listener(...request('GET', '/v1/sessions/slow/events'));
    listener(...request('GET', '/v1/sessions/next/events'));
    await turns(4);
    expect(handled).toEqual(['/v1/sessions/slow/events', '/v1/sessions/next/events']);
  });
});
