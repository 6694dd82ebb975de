import { mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Server } from 'node:http';
import { afterAll, describe, expect, it } from 'vitest';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import { Ajv2020 } from 'ajv/dist/2020.js';
import openapiTS, { astToString } from 'openapi-typescript';
import createClient from 'openapi-fetch';
import ts from 'typescript';
import { DemoModel } from '../../src/llm/demo-model.js';
import { listen } from '../../src/serve/listen.js';
import { openApiDocument } from '../../src/serve/openapi.js';
import { REPO_ROOT } from '../helpers/team.js';
import { TOKEN, server } from '../helpers/serve.js';

type Doc = { paths: Record<string, Record<string, { operationId?: string; responses: Record<string, { content?: Record<string, { schema: object }> }> }>>; servers?: unknown[] };
const doc = openApiDocument() as unknown as Doc;
const temp = mkdtempSync(join(tmpdir(), 'troupe-openapi-'));
const servers: Server[] = [];
afterAll(async () => {
  for (const s of servers) await new Promise((r) => s.close(r));
  rmSync(temp, { recursive: true, force: true });
});

/** The documented operation a request is for: its path template and method. */
function operationOf(method: string, path: string): { template: string; op: Doc['paths'][string][string] } | null {
  const bare = path.split('?')[0]!;
  for (const [template, item] of Object.entries(doc.paths)) {
    const pattern = new RegExp(`^${template.replace(/\{[^}]+\}/g, '[^/]+')}$`);
    if (pattern.test(bare) && item[method.toLowerCase()]) return { template, op: item[method.toLowerCase()]! };
  }
  return null;
}

describe('the OpenAPI document', () => {
  it('lints clean with a third-party linter (Redocly, recommended rules)', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: join(temp, 'openapi.json'), config });
    expect(problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`)).toEqual([]);
  });

  it('names its server and an operationId for every operation', () => {
    expect(doc.servers).toEqual([expect.objectContaining({ url: expect.stringMatching(/^http:\/\//) })]);
    const ops = Object.values(doc.paths).flatMap((item) => Object.values(item));
    expect(ops.filter((op) => !op.operationId)).toEqual([]);
    expect(new Set(ops.map((op) => op.operationId)).size).toBe(ops.length);
  });

  it('every response of every operation, as the server gives them, is documented and validates against it', async () => {
    const ajv = new Ajv2020({ strict: false, allErrors: true });
    const { app, host } = server({ maxSessions: 3, token: null, model: () => new DemoModel() });
    const seen = new Set<string>();
    const checked = async (method: string, path: string, body?: unknown, headers: Record<string, string> = {}) => {
      const response = await app.request(path, {
        method,
        headers: { host: '127.0.0.1:4810', ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
        ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
      });
      const found = operationOf(method, path);
      expect(found, `${method} ${path} is documented`).not.toBe(null);
      const documented = found!.op.responses[String(response.status)];
      expect(documented, `${method} ${found!.template} documents ${response.status}`).toBeDefined();
      const type = (response.headers.get('content-type') ?? '').split(';')[0]!;
      seen.add(`${method} ${found!.template} ${response.status}`);
      if (type === 'application/json') {
        const value = await response.json();
        const schema = documented!.content?.['application/json']?.schema;
        expect(schema, `${method} ${found!.template} ${response.status} has a JSON schema`).toBeDefined();
        const validate = ajv.compile(schema!);
        expect(validate(value) ? [] : validate.errors, `${method} ${found!.template} ${response.status}`).toEqual([]);
        return value as Record<string, unknown>;
      }
      if (type) expect(Object.keys(documented!.content ?? {}), `${method} ${found!.template} ${response.status}`).toContain(type);
      await response.body?.cancel();
      return null;
    };
    await checked('GET', '/healthz');
    await checked('GET', '/openapi.json');
    await checked('GET', '/v1/catalog');
    const made = (await checked('POST', '/v1/sessions', { brief: 'A lighthouse keeper game' }))!;
    const id = made.id as string;
    await checked('POST', '/v1/sessions', {});
    await checked('POST', '/v1/sessions', 'not json');
    await checked('POST', '/v1/sessions', { brief: 'x' }, { 'content-type': 'text/plain' });
    await checked('POST', '/v1/sessions', { brief: 'x'.repeat(5000) });
    await checked('POST', '/v1/sessions', { workflow: '/etc/passwd' });
    await checked('GET', '/v1/sessions', undefined, { host: 'evil.example' });
    for (let i = 0; i < 50 && host.get(id)?.getSnapshot().status !== 'awaiting_user'; i++) await new Promise((r) => setTimeout(r, 20));
    await checked('GET', '/v1/sessions');
    await checked('GET', `/v1/sessions/${id}`);
    await checked('GET', '/v1/sessions/nope');
    await checked('GET', '/v1/sessions/a?b');
    await checked('POST', `/v1/sessions/${id}/input`, { text: '!status' });
    await checked('POST', `/v1/sessions/${id}/input`, { text: '!handoff Nobody' });
    await checked('GET', `/v1/sessions/${id}/graph`);
    const timeline = (await checked('GET', `/v1/sessions/${id}/timeline`))!;
    const step = (timeline.steps as { step: number }[])[0]!.step;
    await checked('GET', `/v1/sessions/${id}/steps/${step}`);
    await checked('GET', `/v1/sessions/${id}/steps/99999`);
    await checked('GET', `/v1/sessions/${id}/steps/x`);
    await checked('GET', `/v1/sessions/${id}/deliverables`);
    await checked('GET', `/v1/sessions/${id}/deliverables?format=markdown`);
    await checked('POST', `/v1/sessions/${id}/fork`, { step: 99999 });
    const fork = (await checked('POST', `/v1/sessions/${id}/fork`, { step }))!;
    await checked('POST', '/v1/sessions', { brief: 'a third' });
    await checked('POST', '/v1/sessions', { brief: 'one too many' });
    await host.stopAll();
    const ended = await checked('POST', '/v1/sessions', { workflow: 'linear_analysis', input: 'x' });
    for (let i = 0; i < 200 && host.has(ended!.id as string); i++) await new Promise((r) => setTimeout(r, 20));
    await checked('POST', `/v1/sessions/${ended!.id as string}/input`, { text: 'more' });
    await checked('GET', `/v1/sessions/${ended!.id as string}/events`, undefined, { 'last-event-id': '100000' });
    await checked('GET', `/v1/sessions/${fork.id as string}/events?after=100000`);
    await checked('POST', `/v1/sessions/${id}/input`, { text: '!quit' });
    const tokened = server({ token: TOKEN });
    const r = await tokened.app.request('/v1/sessions');
    const validate = ajv.compile(doc.paths['/v1/sessions']!.get!.responses['401']!.content!['application/json']!.schema);
    expect(r.status).toBe(401);
    expect(validate(await r.json())).toBe(true);
    // Each operation answered at least one success.
    const ops = Object.entries(doc.paths).flatMap(([template, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${template}`));
    expect(ops.filter((op) => ![...seen].some((s) => s.startsWith(`${op} 2`)))).toEqual([]);
  }, 60_000);

  it('a client generated from it (openapi-typescript + openapi-fetch) refuses a create with no field at compile time, and works against the server', async () => {
    const types = astToString(await openapiTS(doc as never));
    writeFileSync(join(temp, 'api.d.ts'), types);
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(temp, 'node_modules'));
    writeFileSync(
      join(temp, 'use.ts'),
      [
        "import createClient from 'openapi-fetch';",
        "import type { paths } from './api.js';",
        "const client = createClient<paths>({ baseUrl: 'http://127.0.0.1:4810' });",
        "export const team = () => client.POST('/v1/sessions', { body: { brief: 'a brief', mode: 'fsm' } });",
        "export const flow = () => client.POST('/v1/sessions', { body: { workflow: 'linear_analysis', input: 'x' } });",
        '// @ts-expect-error: a create needs a brief or a workflow',
        "export const empty = () => client.POST('/v1/sessions', { body: {} });",
        "export const status = async () => { const r = await client.GET('/v1/sessions'); const s: 'idle' | 'running' | 'awaiting_user' | 'ended' | undefined = r.data?.sessions[0]?.status; return s; };",
      ].join('\n'),
    );
    const program = ts.createProgram([join(temp, 'use.ts')], {
      strict: true,
      noEmit: true,
      module: ts.ModuleKind.NodeNext,
      moduleResolution: ts.ModuleResolutionKind.NodeNext,
      target: ts.ScriptTarget.ES2022,
      skipLibCheck: true,
      types: [],
    });
    const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    expect(problems).toEqual([]);

    const { app } = server({ token: TOKEN });
    const { server: http, port } = await listen(app.fetch, { hostname: '127.0.0.1', port: 0 });
    servers.push(http);
    type Paths = Parameters<typeof createClient>[0];
    const client = createClient<never>({ baseUrl: `http://127.0.0.1:${port}`, headers: { authorization: `Bearer ${TOKEN}` } } as Paths) as unknown as {
      POST: (path: string, init: { body: unknown }) => Promise<{ data?: { id: string; status: string }; response: Response }>;
    };
    const created = await client.POST('/v1/sessions', { body: { brief: 'from a generated client' } });
    expect(created.response.status).toBe(201);
    expect(created.data!.status).toMatch(/^(running|awaiting_user)$/);
    const empty = await client.POST('/v1/sessions', { body: {} });
    expect(empty.response.status).toBe(400);
  }, 60_000);
});
