import { describe, expect, it } from 'vitest';
import type * as Clients from '@restatedev/restate-sdk-clients';
import { RequestRefused } from '../../../src/serve/host.js';
import { RestateSessions, RestateUnavailable } from '../../../src/serve/restate/ingress.js';

/** A clients module whose ingress answers every call with `answer`. */
function clients(answer: () => Promise<unknown>, seen: unknown[] = []): typeof Clients {
  return { connect: () => ({ call: (o: unknown) => (seen.push(o), answer()) }), Opts: { from: (o: unknown) => o } } as unknown as typeof Clients;
}

const httpError = (status: number, body: string) => Object.assign(new Error(`Request failed: ${status}`), { status, responseText: body });

describe('the serve side of the Restate backend', () => {
  it('calls the session object by name and key, with a time limit', async () => {
    const seen: unknown[] = [];
    const sessions = new RestateSessions(
      clients(async () => ({ kind: 'none' }), seen),
      'http://127.0.0.1:8080',
      5_000,
    );
    expect(await sessions.line('s1', '!status')).toEqual({ kind: 'none' });
    expect(seen).toEqual([{ service: 'troupe_session', handler: 'line', key: 's1', parameter: { text: '!status' }, opts: { timeout: 5_000 } }]);
  });

  it("turns Restate answers into the API's: a handler's 4xx as is, other failures 502, no answer 503 or 504", async () => {
    const fail = (error: unknown) =>
      new RestateSessions(
        clients(() => Promise.reject(error)),
        'http://127.0.0.1:8080',
        100,
      )
        .snapshot('s1')
        .catch((e: unknown) => e);
    const refused = await fail(httpError(404, '{"code":404,"message":"no session \\"s1\\"","source":"invocation"}'));
    expect(refused).toBeInstanceOf(RequestRefused);
    expect([(refused as RequestRefused).status, (refused as Error).message]).toEqual([404, 'no session "s1"']);
    expect(await fail(httpError(500, '{"message":"boom"}'))).toMatchObject({ status: 502, message: 'restate: boom' });
    expect(await fail(new TypeError('fetch failed'))).toMatchObject({
      status: 503,
      message: 'the Restate ingress at http://127.0.0.1:8080 is not reachable (fetch failed) — is restate-server running?',
    });
    const late = await fail(Object.assign(new Error('timed out'), { name: 'TimeoutError' }));
    expect(late).toBeInstanceOf(RestateUnavailable);
    expect((late as RestateUnavailable).status).toBe(504);
  });
});
