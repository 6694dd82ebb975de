import * as restate from '@restatedev/restate-sdk';
import { RESTATE_NAMES } from './names.js';
import { runModelCall, type ModelChooser } from './model-call.js';
import { ModelCallSchema, type ResultRequest } from './records.js';

/**
 * The `troupe_model` service: runs one model call inside `ctx.run` (journaled: once it completed it is never
 * made again, whatever crashes after) and sends the outcome to the session's `result` handler. A call cut off by
 * a crash (worker or Restate server) has no journaled outcome and is made again on the next attempt.
 */
export function modelService(choose: ModelChooser, log: (line: string) => void) {
  return restate.service({
    name: RESTATE_NAMES.model,
    // Retried fast after a crash (another worker behind the same deployment URL takes it), paused after ~30 min of failures.
    options: { retryPolicy: { initialInterval: 100, maxInterval: 2_000, exponentiationFactor: 2, maxAttempts: 1_000, onMaxAttempts: 'pause' } },
    handlers: {
      call: async (ctx: restate.Context, raw: unknown) => {
        const parsed = ModelCallSchema.safeParse(raw);
        if (!parsed.success) throw new restate.TerminalError(`model call: ${parsed.error.issues[0]!.message}`, { errorCode: 400 });
        const call = parsed.data;
        const outcome = await ctx.run('model call', () => {
          log(`turn ${call.call.turnId} ${call.call.persona} started · session ${call.sessionId}`);
          return runModelCall(choose, call);
        });
        const result: ResultRequest = { call: call.call, model: call.model, outcome };
        ctx.genericSend({ service: RESTATE_NAMES.session, method: 'result', key: call.sessionId, parameter: result, inputSerde: restate.serde.json });
      },
    },
  });
}
