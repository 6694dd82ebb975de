import { z } from 'zod';
import { EVENT_NAMES } from '../kinds/schemas.js';
import {
  CatalogSchema,
  CreateSessionDocSchema,
  DeliverablesSchema,
  ErrorSchema,
  ForkSchema,
  GraphSchema,
  HealthSchema,
  InputResultSchema,
  InputSchema,
  SessionListItemSchema,
  SessionViewSchema,
  StepViewSchema,
  TimelineSchema,
} from './api-schema.js';
import { SSE_RETRY_MS } from './sse-frame.js';
import { sseEventName } from './sse-message.js';

const json = (schema: z.ZodType) => ({ 'application/json': { schema: z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output' }) } });
const error = (description: string) => ({ description, content: json(ErrorSchema) });
const idParam = { name: 'id', in: 'path', required: true, description: 'A session id or a unique prefix of one', schema: { type: 'string' } };

// The answers every route under /v1 may give besides its own: the token, the origin guard, the body limit.
const GUARDED = {
  401: error('Missing or wrong bearer token (a server started with TROUPE_SERVE_TOKEN)'),
  403: error('Refused by the origin guard of a server without a token: a Host that is not one of its names, or a request from another origin'),
};
const WRITE = {
  ...GUARDED,
  400: error('A body that is not JSON, or a field that does not fit (the line names it)'),
  413: error('Body larger than the limit'),
  415: error('Content-Type is not application/json'),
};
const FOUND = { 404: error('No such session (or a prefix matching none)'), 400: error('An id that is not a session id, or a prefix matching several') };

let cached: Record<string, unknown> | null = null;

/** The OpenAPI 3.1 description of the API, generated from the zod schemas the routes validate with; every response of every operation is in it. */
export function openApiDocument(): Record<string, unknown> {
  cached ??= {
    openapi: '3.1.0',
    info: {
      title: 'troupe serve',
      version: '1',
      description: 'Run persona teams and workflows: create sessions, send input as typed in the terminal UI, read snapshots, stream events, travel in time, read what a session produced.',
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: 'http://127.0.0.1:4810', description: 'troupe serve on its default address (--host, --port change it)' }],
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer', description: 'TROUPE_SERVE_TOKEN; a server on loopback without one takes no token' } } },
    security: [{ bearer: [] }, {}],
    paths: {
      '/healthz': {
        get: { operationId: 'health', summary: 'Liveness', security: [], responses: { 200: { description: 'The server runs', content: json(HealthSchema) }, 403: GUARDED[403] } },
      },
      '/v1/catalog': {
        get: {
          operationId: 'getCatalog',
          summary: "What this server runs: its team's personas and majors, its workflows with their input, the commands, the SSE event names",
          responses: { 200: { description: 'The catalog', content: json(CatalogSchema) }, ...GUARDED },
        },
      },
      '/v1/sessions': {
        post: {
          operationId: 'createSession',
          summary: 'Create a session (a team on a brief, or a workflow on its input) and start it',
          requestBody: { required: true, content: json(CreateSessionDocSchema) },
          responses: {
            201: { description: 'Created', content: json(SessionViewSchema) },
            ...WRITE,
            403: error('A workflow named by path on a server that runs its named workflows only (--allow-workflow-paths), or refused by the origin guard'),
            429: error('Too many sessions running (TROUPE_SERVE_MAX_SESSIONS)'),
          },
        },
        get: {
          operationId: 'listSessions',
          summary: 'List stored sessions (newest first), each with the status GET /v1/sessions/{id} gives',
          parameters: [{ name: 'q', in: 'query', required: false, description: 'Search in briefs and ids', schema: { type: 'string' } }],
          responses: { 200: { description: 'Sessions', content: json(z.object({ sessions: z.array(SessionListItemSchema) })) }, ...GUARDED },
        },
      },
      '/v1/sessions/{id}': {
        get: {
          operationId: 'getSession',
          summary: "A session: its state, status and usage (the meter's totals: the same figures as !cost and the run summary)",
          parameters: [idParam],
          responses: { 200: { description: 'The session', content: json(SessionViewSchema) }, ...GUARDED, ...FOUND },
        },
      },
      '/v1/sessions/{id}/input': {
        post: {
          operationId: 'sendInput',
          summary: 'Send a line as typed in the terminal UI: a reply, an interjection, or a ! command',
          parameters: [idParam],
          requestBody: { required: true, content: json(InputSchema) },
          responses: {
            200: { description: 'What the line answered (inspection commands, !quit)', content: json(InputResultSchema) },
            202: { description: 'Taken; the events tell the rest', content: json(InputResultSchema) },
            ...WRITE,
            400: error('A bad line or command (the session is not reopened for it), or a body that does not fit'),
            404: FOUND[404],
            409: error('The session has ended (it is not reopened)'),
            429: error('The session is not running here and the server runs as many as it may'),
          },
        },
      },
      '/v1/sessions/{id}/events': {
        get: {
          operationId: 'streamEvents',
          summary: "The session's events as Server-Sent Events, resuming after Last-Event-ID",
          description:
            `Starts with \`retry: ${SSE_RETRY_MS}\`. Each message is named by the event type and carries the event's sequence number as its id (streamed \`agent_delta\` words carry none); ` +
            "troupe's `error` event is sent as `troupe_error`, since EventSource fires `onerror` for a message named `error`. " +
            '`data` is the event as `troupe run --json` prints it (`type` unchanged), plus `items`: its display items, worded as the terminal transcript and UI word them ' +
            '(each `{ kind, event, tone, text, mark?, who?, persona?, branch? }` and, by kind, `header` {brief, label}, `user` {brief}, `command`, `progress`, ' +
            '`turn` {turnId, turn, where, state}, `directive` {turnId, state, transition}, `arbitration` {from, decision}, `transition` {from, to, label, reason}, `note`, ' +
            '`output` {title, lines}). Events that show nothing (`usage`, `agent_delta`, `state_entered`, `major_entered`, `major_exited`) have `items: []`. ' +
            'A reader that falls too far behind gets a `dropped` message and the stream ends (reconnect with Last-Event-ID). The stream ends after `session_ended`; ' +
            'a session that is over and has nothing after Last-Event-ID answers 204, which tells EventSource to stop reconnecting. A session that is not running here ' +
            'keeps the stream open (with keep-alive comments) and streams again when it is reopened.',
          parameters: [
            idParam,
            { name: 'Last-Event-ID', in: 'header', required: false, description: 'The id of the last message read: the stream resumes after it', schema: { type: 'string' } },
            { name: 'after', in: 'query', required: false, description: 'Like Last-Event-ID, for clients that cannot set headers', schema: { type: 'integer', minimum: 0 } },
            {
              name: 'access_token',
              in: 'query',
              required: false,
              description: 'The bearer token, for EventSource (which cannot send headers); accepted on this route only',
              schema: { type: 'string' },
            },
          ],
          responses: {
            200: { description: `An event stream; message names: ${[...EVENT_NAMES.map(sseEventName), 'dropped'].join(', ')}`, content: { 'text/event-stream': { schema: { type: 'string' } } } },
            204: { description: 'The session is over and nothing comes after Last-Event-ID: stop reconnecting' },
            ...GUARDED,
            ...FOUND,
          },
        },
      },
      '/v1/sessions/{id}/graph': {
        get: {
          operationId: 'getGraph',
          summary: "The session's definition as a graph (what troupe graph draws): states, groups, transitions",
          parameters: [idParam],
          responses: { 200: { description: 'The graph', content: json(GraphSchema) }, ...GUARDED, ...FOUND },
        },
      },
      '/v1/sessions/{id}/timeline': {
        get: {
          operationId: 'getTimeline',
          summary: "The session's steps, from its journal (each a step to look at or fork from)",
          parameters: [idParam],
          responses: { 200: { description: 'The steps', content: json(TimelineSchema) }, ...GUARDED, ...FOUND },
        },
      },
      '/v1/sessions/{id}/steps/{step}': {
        get: {
          operationId: 'getStep',
          summary: 'The session as it was after a step (its journal folded up to it; nothing runs)',
          parameters: [idParam, { name: 'step', in: 'path', required: true, description: 'A step of the timeline', schema: { type: 'integer', minimum: 0 } }],
          responses: {
            200: { description: 'The session then', content: json(StepViewSchema) },
            ...GUARDED,
            400: error('Not a step number, or a bad id'),
            404: error('No such session, or no such step'),
          },
        },
      },
      '/v1/sessions/{id}/fork': {
        post: {
          operationId: 'forkSession',
          summary: 'Fork a new session from a step (same definition, the journal up to the step) and run it from there; the session forked is only read',
          parameters: [idParam],
          requestBody: { required: true, content: json(ForkSchema) },
          responses: {
            201: { description: 'The fork, running', content: json(SessionViewSchema) },
            ...WRITE,
            400: error('A step the session does not have, or a body that does not fit'),
            404: FOUND[404],
            429: error('Too many sessions running'),
          },
        },
      },
      '/v1/sessions/{id}/deliverables': {
        get: {
          operationId: 'getDeliverables',
          summary: 'What the session produced: the brief, the decisions, the output, the final texts, the workspaces with their files and diffs',
          parameters: [
            idParam,
            { name: 'format', in: 'query', required: false, description: '`markdown` for the document as troupe export writes it', schema: { type: 'string', enum: ['json', 'markdown'] } },
          ],
          responses: { 200: { description: 'The deliverables', content: { ...json(DeliverablesSchema), 'text/markdown': { schema: { type: 'string' } } } }, ...GUARDED, ...FOUND },
        },
      },
      '/openapi.json': {
        get: {
          operationId: 'getOpenApi',
          summary: 'This document',
          security: [],
          responses: { 200: { description: 'The OpenAPI document', content: { 'application/json': { schema: { type: 'object' } } } }, 403: GUARDED[403] },
        },
      },
    },
  };
  return cached;
}
