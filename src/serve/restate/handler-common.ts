import * as restate from '@restatedev/restate-sdk';
import type { z } from 'zod';
import { isDemoLabel } from '../../llm/demo-model.js';
import { statusFactsOf, statusWords } from '../../report/status-words.js';
import { viewOf } from '../view.js';
import { RESTATE_NAMES } from './names.js';
import type { ApplyRequest, SessionHead, SessionMeta } from './records.js';
import { readMeta } from './session-store.js';

/** A request the handler refuses, with the HTTP status the ingress answers. */
export const refuse = (status: 400 | 403 | 404 | 409, message: string) => new restate.TerminalError(message, { errorCode: status });

/** A handler's input checked against its schema; refused (400) naming the field. */
export function parse<T extends z.ZodType>(schema: T, raw: unknown): z.infer<T> {
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw refuse(400, `${issue.path.map(String).join('.') || 'body'}: ${issue.message}`);
}

/** The session's meta; 404 when the key holds no session. */
export async function existing(ctx: restate.ObjectSharedContext): Promise<SessionMeta> {
  const meta = await readMeta(ctx);
  if (!meta) throw refuse(404, `no session "${ctx.key}"`);
  return meta;
}

/** The status in words, as `troupe sessions` puts it: a session on the cluster runs there until it ends (it is never "interrupted"). */
export const restateStatusWords = (s: SessionHead['state']): string => statusWords(statusFactsOf(s), 'live');

/** The API's view of a session on Restate: live on the cluster until it ends. */
export const restateView = (meta: SessionMeta, head: SessionHead) =>
  viewOf(head.state, { kind: meta.kind, hosted: head.state.status !== 'ended', lastEventSeq: head.lastSeq, usage: head.usage ?? null, free: isDemoLabel(meta.model) });

/** Sends `apply` to the session itself (one-way: it runs after the invocation in progress, if any). */
export function sendApply(ctx: restate.Context & { key: string }, request: ApplyRequest): void {
  ctx.genericSend({ service: RESTATE_NAMES.session, method: 'apply', key: ctx.key, parameter: request, inputSerde: restate.serde.json });
}
