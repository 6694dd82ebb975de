import { closeSync, constants, fchmodSync, fstatSync, ftruncateSync, openSync, writeSync } from 'node:fs';
import { UserError } from '../errors.js';
import { z } from 'zod';
import { lazySchema } from '../config/lazy-schema.js';
import type { ChatDelta, ChatModel, ChatRequest, ChatResponse } from './chat-model.js';
import { AbortedError, ModelCallError } from './errors.js';
import { redact, redactDeep } from './redact.js';
import { recordedDeltas } from './recorded-deltas.js';
import { WrappedModel } from './wrapped-model.js';
import { ChatResponseSchema } from './chat-response-schema.js';

/** Format version of recording files (`at` is optional: files without it still replay). */
export const RECORDING_VERSION = 1;
/** Largest recording `--replay` reads (256 MiB, as a session file: far above a recording of thousands of calls). */
export const MAX_RECORDING_BYTES = 256 * 1024 * 1024;

/** The part of a request a recording keeps: enough to replay it and to spot a divergence. */
export const RecordedRequestSchema = lazySchema(() =>
  z.object({
    model: z.string(),
    messages: z.array(
      z.object({
        role: z.enum(['system', 'user', 'assistant', 'tool']),
        content: z.string(),
        /** An assistant message's tool calls (tool-using agents). */
        toolCalls: z.array(z.object({ id: z.string(), name: z.string(), arguments: z.string() })).optional(),
        /** A tool message: the call it answers and the tool's name. */
        toolCallId: z.string().optional(),
        name: z.string().optional(),
      }),
    ),
    tools: z.array(z.string()),
    jsonMode: z.boolean(),
    purpose: z.string(),
    persona: z.string().nullable(),
  }),
);

/** One recorded model call: the request and its response, error or abort, with the streamed deltas. */
export const RecordedCallSchema = lazySchema(() =>
  z.object({
    type: z.literal('call'),
    n: z.number().int().min(1),
    request: RecordedRequestSchema,
    deltas: z
      .array(z.union([z.object({ type: z.literal('text'), text: z.string() }), z.object({ type: z.literal('tool_arguments'), index: z.number(), name: z.string().optional(), text: z.string() })]))
      .default([]),
    response: ChatResponseSchema.optional(),
    error: z.object({ message: z.string(), status: z.number().optional() }).optional(),
    aborted: z.boolean().optional(),
    /**
     * Where the session stood when the call's answer arrived: persona calls started and finished so far.
     * A replay hands a background call's answer (a memory summary) back at the same point.
     */
    at: z.object({ started: z.number().int().min(0), done: z.number().int().min(0) }).optional(),
  }),
);

/** The first line of a recording. */
export const RecordingHeaderSchema = lazySchema(() => z.object({ type: z.literal('recording'), version: z.number(), label: z.string(), created: z.string() }));

/** A request as recorded. */
export type RecordedRequest = z.infer<typeof RecordedRequestSchema>;
/** One recorded call. */
export type RecordedCall = z.infer<typeof RecordedCallSchema>;

/** The recorded view of a live request. */
export function recordedRequest(request: ChatRequest): RecordedRequest {
  return {
    model: request.model,
    messages: request.messages.map((m) => {
      if (m.role === 'tool') return { role: m.role, content: m.content, toolCallId: m.toolCallId, name: m.name };
      if (m.role === 'assistant' && m.toolCalls?.length) return { role: m.role, content: m.content, toolCalls: m.toolCalls.map((c) => ({ id: c.id, name: c.name, arguments: c.arguments })) };
      return { role: m.role, content: m.content };
    }),
    tools: (request.tools ?? []).map((t) => t.name),
    jsonMode: request.jsonMode ?? false,
    purpose: request.meta.purpose,
    persona: request.meta.persona ?? null,
  };
}

/** Resolves after the current macrotask: pending microtask chains (a turn being handled) settle first. */
export function nextMacrotask(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve));
}

/**
 * Opens a recording's file for writing from its start, only as a regular file of its own: never through a
 * link (one planted at the name, in a cloned repository, had its target cut), never a FIFO or device (opened
 * without waiting, then refused), readable by this user only (it holds the whole conversation).
 */
function openRecordingFile(file: string): number {
  let fd: number;
  try {
    fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_NOFOLLOW | constants.O_NONBLOCK, 0o600);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') throw new UserError(`cannot record to ${file}: it is a symbolic link (a recording is never written through one) — remove it or name another file`);
    if (code === 'ENXIO') throw new UserError(`cannot record to ${file}: it is not a regular file — name a file`);
    throw new UserError(`cannot record to ${file}: ${code ?? (error as Error).message} — name a file you can write`);
  }
  if (!fstatSync(fd).isFile()) {
    closeSync(fd);
    throw new UserError(`cannot record to ${file}: it is not a regular file — name a file`);
  }
  // Cut only now that it is known to be a file of its own (O_TRUNC at the open would have cut a device's or FIFO's reader).
  fchmodSync(fd, 0o600);
  ftruncateSync(fd, 0);
  return fd;
}

/**
 * Wraps a model and writes every request and response to a JSON-lines file (no keys or headers ever reach it).
 * A background call (a memory summary) answers one macrotask late, so it lands at a settled point of
 * the session, which `at` records and a replay reproduces.
 */
export class RecordingModel extends WrappedModel {
  private calls = 0;
  private started = 0;
  private done = 0;

  constructor(
    inner: ChatModel,
    readonly file: string,
    clock: () => Date = () => new Date(),
  ) {
    super(inner);
    this.fd = openRecordingFile(file);
    writeSync(this.fd, `${JSON.stringify({ type: 'recording', version: RECORDING_VERSION, label: redact(inner.label), created: clock().toISOString() })}\n`);
  }

  private readonly fd: number;

  async generate(request: ChatRequest): Promise<ChatResponse> {
    // A warming request changes nothing in the session (its answer is dropped): a replay has nothing to answer it with.
    if (request.meta.purpose === 'warming') return this.inner.generate(request);
    const n = ++this.calls;
    const persona = request.meta.purpose === 'persona';
    if (persona) this.started += 1;
    const deltas: ChatDelta[] = [];
    const onDelta = request.onDelta;
    const base = { type: 'call' as const, n, request: recordedRequest(request) };
    const at = () => ({ started: this.started, done: this.done });
    try {
      const response = await this.inner.generate({
        ...request,
        onDelta: (d) => {
          deltas.push(d);
          onDelta?.(d);
        },
      });
      if (!persona) await nextMacrotask();
      this.write({ ...base, deltas, response, at: at() });
      return response;
    } catch (error) {
      if (!persona) await nextMacrotask();
      if (error instanceof AbortedError) this.write({ ...base, deltas, aborted: true, at: at() });
      else {
        const status = error instanceof ModelCallError ? error.status : undefined;
        this.write({ ...base, deltas, error: { message: error instanceof Error ? error.message : String(error), ...(status !== undefined ? { status } : {}) }, at: at() });
      }
      throw error;
    } finally {
      if (persona) this.done += 1;
    }
  }

  private write(call: RecordedCall): void {
    // Redact the values, not the serialised line, so the JSON stays valid for replay; the deltas as the streams they make up.
    writeSync(this.fd, `${JSON.stringify(redactDeep({ ...call, deltas: recordedDeltas(call.deltas) }))}\n`);
  }
}
