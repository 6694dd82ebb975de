import { z } from 'zod';
import { EngineEventSchema } from './event-map.js';
import { AgentCallSchema } from './moves.js';
import { EvaluationSchema } from './evaluation.js';

/** Work the runtime performs for the pure core; results come back as engine inputs. */
export const EffectSchema = z.discriminatedUnion('type', [
  z.object({ type: z.literal('emit'), event: EngineEventSchema }),
  z.object({ type: z.literal('call_agent'), call: AgentCallSchema }),
  /** Run a workflow's code in the sandbox; the result comes back as an `evaluated` input with this id. */
  z.object({ type: z.literal('evaluate'), id: z.string(), evaluation: EvaluationSchema }),
  z.object({ type: z.literal('abort_call'), turnId: z.string(), reason: z.string() }),
  z.object({ type: z.literal('await_user'), reason: z.string() }),
  z.object({ type: z.literal('detach'), reason: z.string() }),
  z.object({ type: z.literal('end'), reason: z.string() }),
]);

/** Work the runtime performs for the pure core. */
export type Effect = z.infer<typeof EffectSchema>;
