import { z } from 'zod';
import { EVENT_NAMES } from '../kinds/schemas.js';
import { CreateSessionSchema, ErrorSchema, InputResultSchema, InputSchema, SessionListItemSchema, SessionViewSchema } from './api-schema.js';

const json = (schema: z.ZodType) => ({ 'application/json': { schema: z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output' }) } });
const error = (description: string) => ({ description, content: json(ErrorSchema) });
const idParam = { name: 'id', in: 'path', required: true, description: 'A session id or a unique prefix of one', schema: { type: 'string' } };

let cached: Record<string, unknown> | null = null;

/** The OpenAPI 3.1 description of the API, generated from the zod schemas the routes validate with. */
export function openApiDocument(): Record<string, unknown> {
  cached ??= {
    openapi: '3.1.0',
    info: { title: 'troupe serve', version: '1', description: 'Run persona teams and workflows: create sessions, send input as typed in the terminal UI, read snapshots, stream events.' },
    components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
    security: [{ bearer: [] }],
    paths: {
      '/healthz': { get: { summary: 'Liveness', security: [], responses: { 200: { description: 'The server runs' } } } },
      '/v1/sessions': {
        post: {
          summary: 'Create a session (team or workflow) and start it',
          requestBody: { required: true, content: json(CreateSessionSchema) },
          responses: { 201: { description: 'Created', content: json(SessionViewSchema) }, 400: error('Bad body'), 401: error('Missing or wrong token'), 403: error('A workflow named by path (the server runs its named workflows unless started with --allow-workflow-paths)'), 413: error('Body too large'), 429: error('Too many sessions running') },
        },
        get: {
          summary: 'List stored sessions (newest first)',
          parameters: [{ name: 'q', in: 'query', required: false, description: 'Search in briefs and ids', schema: { type: 'string' } }],
          responses: { 200: { description: 'Sessions', content: json(z.object({ sessions: z.array(SessionListItemSchema) })) } },
        },
      },
      '/v1/sessions/{id}': {
        get: { summary: 'A session: its state, status and usage (the meter\'s totals: the same figures as !cost and the run summary)', parameters: [idParam], responses: { 200: { description: 'The session', content: json(SessionViewSchema) }, 404: error('No such session') } },
      },
      '/v1/sessions/{id}/input': {
        post: {
          summary: 'Send a line as typed in the terminal UI: a reply, an interjection, or a ! command',
          parameters: [idParam],
          requestBody: { required: true, content: json(InputSchema) },
          responses: { 200: { description: 'What the line answered (inspection commands)', content: json(InputResultSchema) }, 202: { description: 'Taken; the events tell the rest', content: json(InputResultSchema) }, 400: error('Bad line or command'), 404: error('No such session'), 409: error('The session has ended') },
        },
      },
      '/v1/sessions/{id}/events': {
        get: {
          summary: 'The session\'s events as Server-Sent Events, resuming after Last-Event-ID',
          description:
            'Each message is named by the event type and carries the event\'s sequence number as its id (streamed `agent_delta` words carry none). ' +
            '`data` is the event as `troupe run --json` prints it, plus `items`: its display items, worded as the terminal transcript and UI word them ' +
            '(each `{ kind, event, tone, text, mark?, who?, persona?, branch? }` and, by kind, `header` {brief, label}, `user` {brief}, `command`, `progress`, ' +
            '`turn` {turnId, turn, where, state}, `directive` {turnId, state, transition}, `arbitration` {from, decision}, `transition` {from, to, label, reason}, `note`, ' +
            '`output` {title, lines}). Events that show nothing (`usage`, `agent_delta`, `state_entered`, `major_entered`, `major_exited`) have `items: []`.',
          parameters: [
            idParam,
            { name: 'Last-Event-ID', in: 'header', required: false, schema: { type: 'string' } },
            { name: 'access_token', in: 'query', required: false, description: 'The bearer token, for EventSource (which cannot send headers); accepted on this route only', schema: { type: 'string' } },
          ],
          responses: { 200: { description: `An event stream; event names: ${EVENT_NAMES.join(', ')}`, content: { 'text/event-stream': { schema: { type: 'string' } } } } },
        },
      },
    },
  };
  return cached;
}
