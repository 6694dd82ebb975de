import { constants, type Http2Server, type Http2Session, type ServerHttp2Stream } from 'node:http2';
import { IdleFirst } from '../idle-first.js';

/** What an HTTP/2 endpoint holds at most: connections (each an HTTP/2 session) and open streams in all. */
export interface Http2Caps {
  maxSessions: number;
  maxStreams: number;
}

/** The most streams a Restate worker has open at once unless TROUPE_WORKER_MAX_STREAMS says otherwise (each is one invocation in flight). */
export const DEFAULT_MAX_STREAMS = 10_000;

/**
 * Holds an HTTP/2 server to at most `maxSessions` connections and `maxStreams` open streams across them. A
 * connection over the cap closes the one idle longest (no stream open: one that never sends its preface, or
 * Restate's between invocations) to make room, or is closed itself when every held one has a stream open. A
 * stream over the cap is refused (RST_STREAM REFUSED_STREAM, which a client may retry: nothing of it ran); each
 * session also announces the cap as its SETTINGS_MAX_CONCURRENT_STREAMS (see http2Settings), so Restate does not
 * pass it on one connection. Without it a flood of idle sockets used up the worker's file descriptors, and one
 * connection could open 4 billion streams (Node's default) at 10 MB of memory a session.
 */
export function capHttp2Sessions(server: Http2Server, caps: Http2Caps): { sessions: () => number; streams: () => number } {
  const pool = new IdleFirst<Http2Session>(caps.maxSessions);
  let streams = 0;

  server.on('session', (session: Http2Session) => {
    if (!pool.admit(session, (oldest) => oldest.destroy())) {
      session.destroy();
      return;
    }
    session.once('close', () => {
      streams -= pool.closed(session);
    });
  });

  server.on('stream', (stream: ServerHttp2Stream) => {
    const session = stream.session;
    if (!session || session.destroyed || !pool.holds(session) || streams >= caps.maxStreams) {
      stream.close(constants.NGHTTP2_REFUSED_STREAM);
      return;
    }
    streams += 1;
    pool.began(session);
    stream.once('close', () => {
      // Counted off already when its session closed first.
      if (pool.ended(session, !session.destroyed && !session.closed)) streams -= 1;
    });
  });

  return { sessions: () => pool.size, streams: () => streams };
}

/** The settings an HTTP/2 endpoint announces under these caps: no more concurrent streams on one connection than in all. */
export function http2Settings(caps: Http2Caps): { maxConcurrentStreams: number } {
  return { maxConcurrentStreams: caps.maxStreams };
}
