import { z } from 'zod';
import type { ChatResponse } from './chat-model.js';

/** A model's answer as stored (recordings): the shape of ChatResponse. */
export const ChatResponseSchema = z.object({
  text: z.string(),
  toolCalls: z.array(z.object({ id: z.string().optional(), name: z.string(), arguments: z.string() })),
  usage: z.object({ promptTokens: z.number(), completionTokens: z.number(), cachedTokens: z.number().optional() }).nullable(),
  finishReason: z.string().nullable(),
  model: z.string(),
}) satisfies z.ZodType<ChatResponse>;
