import type { Http2ServerRequest, Http2ServerResponse, Http2Session } from 'node:http2';
import type { Socket } from 'node:net';
import { peerUid } from '../peer-user.js';

/** A request handler of an HTTP/2 server (the Restate endpoint's). */
type Handler = (request: Http2ServerRequest, response: Http2ServerResponse) => void;

/**
 * `handler` answering only this user's connections (and root's) when the worker has no identity keys: on loopback
 * every user of the machine reaches it, and one who speaks Restate's protocol hands it a session's state (a workflow's
 * plan with its grants, the id its workspaces go under) and has it run turns on this user's API key. The owner of a
 * connection's client end is looked up once per connection (see peer-user.ts, as `troupe serve` without a token);
 * one the system does not say (not Linux) is answered, as before. Another user's request gets 403 in one line, and
 * the first one logs how to let a Restate server of another user in.
 */
export function ownUserOnly(handler: Handler, uid: number | null, log: (line: string) => void): Handler {
  if (uid === null) return handler;
  const owners = new WeakMap<Http2Session, Promise<number | null>>();
  let told = false;
  return (request, response) => {
    const session = request.stream.session;
    if (!session) return handler(request, response);
    let owner = owners.get(session);
    if (!owner) {
      owner = peerUid(session.socket as Socket);
      owners.set(session, owner);
    }
    void owner.then((peer) => {
      if (peer === null || peer === uid || peer === 0) return handler(request, response);
      if (!told) log(`restate: refused a request of uid ${peer}: a worker without TROUPE_RESTATE_IDENTITY_KEYS answers only its own user (uid ${uid}); set them when Restate runs as another user`);
      told = true;
      response.writeHead(403, { 'content-type': 'text/plain' });
      response.end(
        `this worker has no identity keys, so it answers only its own user (uid ${uid}), not uid ${peer}; set TROUPE_RESTATE_IDENTITY_KEYS to let a Restate server of another user call it\n`,
      );
    });
  };
}
