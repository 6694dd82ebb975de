/** The root of every troupe error: catch it to tell troupe's errors from everything else. */
export class TroupeError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A problem the user can fix (input, flags, config, environment, a file); printed as one line, no stack. */
export class UserError extends TroupeError {}

/** A model or server misbehaved (an error response, output that cannot be used). */
export class ModelError extends TroupeError {}
