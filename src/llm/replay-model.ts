import { readFileSync } from 'node:fs';
import type { ChatModel, ChatRequest, ChatResponse } from './chat-model.js';
import { AbortedError, ModelCallError, UserError } from './errors.js';
import { redactDeep } from './redact.js';
import { RecordedCallSchema, RecordingHeaderSchema, recordedRequest, type RecordedCall, type RecordedRequest } from './recording.js';

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
  }
  return null;
}

/** Plays a recording back offline: answers requests in order and reports the first divergence in one line. */
export class ReplayModel implements ChatModel {
  readonly label: string;
  readonly offline = true;
  /** The first divergence, once one happened. */
  divergence: string | null = null;
  private next = 0;

  constructor(
    private readonly calls: RecordedCall[],
    label: string,
  ) {
    this.label = label;
  }

  /** Loads a recording written by `--record`; a bad file is a one-line UserError naming the line. */
  static fromFile(file: string): ReplayModel {
    let text: string;
    try {
      text = readFileSync(file, 'utf8');
    } catch {
      throw new UserError(`cannot read the recording ${file} — check the --replay path`);
    }
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
    return new ReplayModel(calls.sort((a, b) => a.n - b.n), label);
  }

  /** Recorded calls not yet replayed. */
  get remaining(): number {
    return this.calls.length - this.next;
  }

  async generate(request: ChatRequest): Promise<ChatResponse> {
    if (request.signal?.aborted) {
      if (this.calls[this.next]?.aborted) this.next += 1;
      throw new AbortedError('call aborted');
    }
    const n = this.next + 1;
    const who = request.meta.purpose === 'persona' ? `persona ${request.meta.persona ?? '?'}` : request.meta.purpose;
    const call = this.calls[this.next];
    if (!call) return this.diverge(`replay diverged at call ${n} (${who}): the recording holds only ${this.calls.length} call(s)`);
    // The recording holds redacted text; compare the live request the same way.
    const difference = requestDifference(call.request, redactDeep(recordedRequest(request)));
    if (difference) return this.diverge(`replay diverged at call ${n} (${who}): ${difference}`);
    this.next += 1;
    for (const delta of call.deltas) request.onDelta?.(delta);
    if (call.aborted) return this.diverge(`replay diverged at call ${n} (${who}): it was aborted in the recording but not now`);
    if (call.error) throw new ModelCallError(call.error.message, false, call.error.status !== undefined ? { status: call.error.status } : {});
    if (!call.response) return this.diverge(`replay: call ${n} (${who}) has no response in the recording`);
    return structuredClone(call.response);
  }

  private diverge(message: string): never {
    this.divergence ??= message;
    throw new ModelCallError(message, false);
  }
}
