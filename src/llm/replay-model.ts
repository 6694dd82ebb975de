import { readRegularFile, type RegularFileRead } from '../config/safe-read.js';
import type { ChatModel, ChatRequest, ChatResponse } from './chat-model.js';
import { AbortedError, ModelCallError, UserError } from './errors.js';
import { redactDeep } from './redact.js';
import { replayLabel } from './replay-label.js';
import { MAX_RECORDING_BYTES, RecordedCallSchema, RecordingHeaderSchema, recordedRequest, type RecordedCall, type RecordedRequest } from './recording.js';

/**
 * The text of a recording file: a regular file (a FIFO blocked troupe for good, and /dev/zero was read until the
 * machine's memory ran out: 4.5 GB in 20 s), no larger than any file troupe writes. Else one UserError line.
 */
function readRecording(file: string): string {
  let read: RegularFileRead;
  try {
    read = readRegularFile(file, MAX_RECORDING_BYTES);
  } catch {
    throw new UserError(`cannot read the recording ${file} — check the --replay path`);
  }
  if (!('problem' in read)) return read.bytes.toString('utf8');
  throw new UserError(
    read.problem === 'not regular'
      ? `the recording ${file} is not a regular file (a directory, FIFO or device) — give --replay a file written by --record`
      : `the recording ${file} is ${read.size} bytes, more than troupe writes (${MAX_RECORDING_BYTES}) — give --replay a file written by --record`,
  );
}

function snippet(text: string, at: number): string {
  const piece = text.slice(Math.max(0, at - 20), at + 40).replace(/\s+/g, ' ');
  return JSON.stringify(`${at > 20 ? '…' : ''}${piece}${at + 40 < text.length ? '…' : ''}`);
}

/** The first difference between a recorded and a live request, in words, or null when they match. */
export function requestDifference(recorded: RecordedRequest, live: RecordedRequest): string | null {
  for (const key of ['purpose', 'persona', 'model', 'jsonMode'] as const) {
    if (recorded[key] !== live[key]) return `${key} differs: recorded ${JSON.stringify(recorded[key])}, now ${JSON.stringify(live[key])}`;
  }
  if (recorded.tools.join(',') !== live.tools.join(',')) return `tools differ: recorded [${recorded.tools.join(', ')}], now [${live.tools.join(', ')}]`;
  const count = Math.max(recorded.messages.length, live.messages.length);
  for (let i = 0; i < count; i++) {
    const a = recorded.messages[i];
    const b = live.messages[i];
    if (!a || !b) return `message count differs: recorded ${recorded.messages.length}, now ${live.messages.length}`;
    if (a.role !== b.role) return `messages[${i}].role differs: recorded ${a.role}, now ${b.role}`;
    if (a.content !== b.content) {
      let at = 0;
      while (at < a.content.length && a.content[at] === b.content[at]) at++;
      return `messages[${i}] (${a.role}) differs at character ${at}: recorded ${snippet(a.content, at)}, now ${snippet(b.content, at)}`;
    }
    const calls = (m: typeof a) => JSON.stringify([m.toolCalls ?? [], m.toolCallId ?? null, m.name ?? null]);
    if (calls(a) !== calls(b)) return `messages[${i}] (${a.role}) tool calls differ: recorded ${calls(a).slice(0, 120)}, now ${calls(b).slice(0, 120)}`;
  }
  return null;
}

type Point = { started: number; done: number };

/**
 * Plays a recording back offline and reports the first divergence in one line. Persona calls are
 * answered in recorded order; background calls (memory summaries) in their own order, each handed
 * back when the session reaches the point where it arrived in the recording (`at`), so summaries
 * land between the same persona turns as they did live.
 */
export class ReplayModel implements ChatModel {
  readonly label: string;
  readonly offline = true;
  /** The first divergence, once one happened. */
  divergence: string | null = null;
  private readonly queues = new Map<string, RecordedCall[]>();
  private readonly taken = new Map<string, number>();
  private started = 0;
  private done = 0;
  private held: { at: Point; release: () => void }[] = [];

  constructor(calls: RecordedCall[], label: string) {
    this.label = label;
    for (const call of [...calls].sort((a, b) => a.n - b.n)) {
      const queue = this.queues.get(call.request.purpose) ?? [];
      queue.push(call);
      this.queues.set(call.request.purpose, queue);
    }
  }

  /** Loads a recording written by `--record`; a bad file is a one-line UserError naming the line. */
  static fromFile(file: string): ReplayModel {
    const text = readRecording(file);
    const lines = text.split('\n').filter((l) => l.trim() !== '');
    let label = 'replay';
    const calls: RecordedCall[] = [];
    lines.forEach((line, i) => {
      let json: unknown;
      try {
        json = JSON.parse(line);
      } catch {
        throw new UserError(`${file}: line ${i + 1} is not valid JSON — the recording is damaged; record it again with --record`);
      }
      const header = RecordingHeaderSchema.safeParse(json);
      if (header.success) {
        label = header.data.label;
        return;
      }
      const call = RecordedCallSchema.safeParse(json);
      if (!call.success) throw new UserError(`${file}: line ${i + 1} is not a recorded call (${call.error.issues[0]?.message}) — record it again with --record`);
      calls.push(call.data);
    });
    if (calls.length === 0 && !lines.length) throw new UserError(`${file}: the recording is empty — record a session with --record first`);
    return new ReplayModel(calls, replayLabel(file, label));
  }

  /** Recorded calls not yet replayed. */
  get remaining(): number {
    let n = 0;
    for (const [purpose, queue] of this.queues) n += queue.length - (this.taken.get(purpose) ?? 0);
    return n;
  }

  async generate(request: ChatRequest): Promise<ChatResponse> {
    if (request.meta.purpose !== 'persona') return this.background(request);
    this.started += 1;
    try {
      return await this.persona(request);
    } finally {
      this.done += 1;
      // Background answers that arrived after this call, before the next began (the session waited for the user).
      setImmediate(() => this.releaseDue());
    }
  }

  private async persona(request: ChatRequest): Promise<ChatResponse> {
    if (request.signal?.aborted) {
      if (this.peek('persona')?.aborted) this.advance('persona');
      throw new AbortedError('call aborted');
    }
    const { call, who } = this.take(request);
    this.releaseDue();
    // Background answers due by now land before this turn's answer is handled, as they did live.
    await new Promise<void>((resolve) => setImmediate(resolve));
    for (const delta of call.deltas) request.onDelta?.(delta);
    if (call.aborted) return this.diverge(`replay diverged at call ${call.n} (${who}): it was aborted in the recording but not now`);
    return this.answer(call, who);
  }

  private async background(request: ChatRequest): Promise<ChatResponse> {
    const { call, who } = this.take(request);
    // Never sooner than a macrotask later: live, the answer came from a server.
    await new Promise<void>((resolve) => {
      if (!call.at) return void setImmediate(resolve);
      this.held.push({ at: call.at, release: resolve });
      setImmediate(() => this.releaseDue());
    });
    for (const delta of call.deltas) request.onDelta?.(delta);
    if (call.aborted) throw new AbortedError('call aborted');
    return this.answer(call, who);
  }

  private answer(call: RecordedCall, who: string): ChatResponse {
    if (call.error) throw new ModelCallError(call.error.message, false, call.error.status !== undefined ? { status: call.error.status } : {});
    if (!call.response) return this.diverge(`replay: call ${call.n} (${who}) has no response in the recording`);
    return structuredClone(call.response);
  }

  /** Hands back held background answers whose recorded point the session has reached. */
  private releaseDue(): void {
    const due = this.held.filter((h) => h.at.started <= this.started && h.at.done <= this.done);
    if (due.length === 0) return;
    this.held = this.held.filter((h) => !due.includes(h));
    for (const h of due) h.release();
  }

  private peek(purpose: string): RecordedCall | undefined {
    return this.queues.get(purpose)?.[this.taken.get(purpose) ?? 0];
  }

  private advance(purpose: string): void {
    this.taken.set(purpose, (this.taken.get(purpose) ?? 0) + 1);
  }

  /** The next recorded call of the request's purpose, checked against the live request. */
  private take(request: ChatRequest): { call: RecordedCall; who: string } {
    const purpose = request.meta.purpose;
    const who = purpose === 'persona' ? `persona ${request.meta.persona ?? '?'}` : purpose;
    const call = this.peek(purpose);
    if (!call) {
      const total = [...this.queues.values()].reduce((n, q) => n + q.length, 0);
      const taken = [...this.taken.values()].reduce((n, t) => n + t, 0);
      return this.diverge(
        `replay diverged at call ${taken + 1} (${who}): the recording holds only ${total} call(s)${purpose === 'persona' ? '' : ` (${this.queues.get(purpose)?.length ?? 0} for ${purpose})`}`,
      );
    }
    // The recording holds redacted text; compare the live request the same way.
    const difference = requestDifference(call.request, redactDeep(recordedRequest(request)));
    if (difference) return this.diverge(`replay diverged at call ${call.n} (${who}): ${difference}`);
    this.advance(purpose);
    return { call, who };
  }

  private diverge(message: string): never {
    this.divergence ??= message;
    throw new ModelCallError(message, false);
  }
}
