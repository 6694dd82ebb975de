import { ModelError, TroupeError, UserError } from '../errors.js';

export { TroupeError, UserError, ModelError };

/** A model or server failure; `retryable` says whether trying again may help. */
export class ModelCallError extends ModelError {
  constructor(
    message: string,
    readonly retryable: boolean,
    options?: { cause?: unknown; status?: number; retryAfterMs?: number },
  ) {
    super(message, options);
    this.status = options?.status;
    this.retryAfterMs = options?.retryAfterMs;
  }
  readonly status: number | undefined;
  /** How long the server asked us to wait before retrying (retry-after / retry-after-ms). */
  readonly retryAfterMs: number | undefined;
}

/** A call aborted by the user or the session. */
export class AbortedError extends TroupeError {}
