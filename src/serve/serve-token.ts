// `troupe serve` off loopback is reachable by anyone on the network: its token is all that stands between
// them and running models on the server's key, so it must be one that cannot be guessed.

/** Hosts that only this machine can reach: a token is optional there. */
export const LOOPBACK: ReadonlySet<string> = new Set(['127.0.0.1', 'localhost', '::1']);
/** Fewest characters of a token off loopback: 32 hex characters carry 128 bits. */
export const MIN_TOKEN_CHARS = 32;
/** Fewest different characters in it (a long run of one character is not a secret). */
const MIN_DISTINCT = 8;
/** How to make a good token, for the error lines. */
const MAKE_ONE = 'make one with: openssl rand -hex 32';

/** Why `troupe serve` may not listen on `hostname` with this token (one line with the fix), or null when it may. */
export function tokenProblem(token: string | null, hostname: string): string | null {
  if (LOOPBACK.has(hostname)) return null;
  if (!token) return `serve: listening on ${hostname} needs a token — set TROUPE_SERVE_TOKEN (${MAKE_ONE}), or listen on 127.0.0.1`;
  if (token.length < MIN_TOKEN_CHARS || new Set(token).size < MIN_DISTINCT) {
    return `serve: TROUPE_SERVE_TOKEN is too weak to listen on ${hostname} (${token.length} characters; at least ${MIN_TOKEN_CHARS}, random, for 128 bits) — ${MAKE_ONE}`;
  }
  return null;
}
