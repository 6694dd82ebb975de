import type { Hono } from 'hono';
import { COMMANDS } from '../commands/catalog.js';
import type { MachineDefinition } from '../engine/definition.js';
import { EVENT_NAMES } from '../kinds/schemas.js';
import { redactDeep } from '../llm/redact.js';
import { deliverablesMarkdown } from '../report/deliverables-markdown.js';
import { displayNames } from '../report/display-items.js';
import { graphModel } from '../report/graph-model.js';
import { timelineOf } from '../report/timeline.js';
import { lastSeqAtStep, stateAtStep } from '../session/at-step.js';
import { sessionDeliverables } from '../session/deliverables-of.js';
import type { ReadSession } from '../store/store.js';
import { readBody } from './api-frame.js';
import { ForkSchema } from './api-schema.js';
import { RequestRefused, type SessionHost } from './host.js';
import { sseEventName } from './sse-message.js';
import { sessionView, storedDefinition, storedUsage } from './view.js';

/** The catalog of a server (either backend), built once: its team, its workflows with their input (each loaded to read it), the commands, the SSE names. */
export function serverCatalog(def: MachineDefinition, workflows: SessionHost['options']['workflows']): Record<string, unknown> {
  const listed = workflows?.list?.() ?? [];
  return {
    team: {
      name: def.name,
      modes: ['fsm', 'simple'],
      majors: (def.team?.majors ?? []).map((m) => ({ id: m.id, kind: m.kind, lead: m.lead })),
      personas: def.agents.map((a) => ({ id: a.id, name: a.name, major: a.major, description: a.description })),
    },
    workflows: listed.map((w) => {
      try {
        return { name: w.name, description: w.description, input: workflows!.load(w.name).input };
      } catch (error) {
        return { name: w.name, description: w.description, input: null, problem: error instanceof Error ? error.message.split('\n')[0]! : String(error) };
      }
    }),
    commands: COMMANDS.filter((c) => !['quit', 'sessions', 'rewind', 'workflow'].includes(c.name)).map((c) => ({ name: c.name, usage: c.usage, summary: c.summary })),
    events: [...EVENT_NAMES.map(sseEventName), 'dropped'],
  };
}

/**
 * The routes the console reads besides the session itself: the catalog, a session's graph, its timeline of
 * journal steps and its state after any of them, forking it at a step, and its deliverables.
 */
export function sessionRoutes(api: Hono, host: SessionHost, resolve: (wanted: string) => Promise<string>): void {
  const { store, team } = host.options;
  let catalog: Record<string, unknown> | null = null;
  const stored = async (wanted: string): Promise<{ id: string; read: ReadSession; def: MachineDefinition }> => {
    const id = await resolve(wanted);
    const read = await store.read(id);
    return { id, read, def: host.get(id)?.def ?? storedDefinition(read, team) };
  };
  const stepOf = (text: string) => {
    if (!/^\d{1,9}$/.test(text)) throw new RequestRefused(400, `step: must be a step number (GET /v1/sessions/{id}/timeline lists them), got "${text}"`);
    return Number(text);
  };

  api.get('/catalog', (c) => {
    catalog ??= serverCatalog(team.def, host.options.workflows);
    return c.json(catalog);
  });

  api.get('/sessions/:id/graph', async (c) => {
    const id = await resolve(c.req.param('id'));
    const live = host.get(id);
    const def = live?.def ?? storedDefinition(await store.read(id), team);
    return c.json(graphModel(def));
  });

  api.get('/sessions/:id/timeline', async (c) => {
    const { id, read, def } = await stored(c.req.param('id'));
    return c.json({ id, steps: redactDeep(timelineOf(read.records, displayNames(def))) });
  });

  api.get('/sessions/:id/steps/:step', async (c) => {
    const { read, def } = await stored(c.req.param('id'));
    const step = stepOf(c.req.param('step'));
    if (step > read.records.length) throw new RequestRefused(404, `step ${step} is not a step of session ${read.doc.id}: it has steps 0 to ${read.records.length}`);
    const snapshot = stateAtStep(def, read, step);
    const lastSeq = lastSeqAtStep(read, step);
    const upTo = { ...read, events: read.events.filter((e) => e.seq <= lastSeq), records: read.records.slice(0, step) };
    return c.json({
      step,
      lastSeq,
      session: sessionView({
        doc: read.doc,
        lastSeq,
        usage: await storedUsage({ ...upTo, doc: { ...read.doc, checkpoint: { ...read.doc.checkpoint, records: 0, usage: null } } }, host.meter()),
        snapshot,
        // As it was then: a turn running at that step was running, not interrupted.
        holder: 'live',
      }),
    });
  });

  api.post('/sessions/:id/fork', async (c) => {
    const id = await resolve(c.req.param('id'));
    const { step } = await readBody(c, ForkSchema);
    const session = await host.fork(id, step);
    return c.json(sessionView({ session }), 201);
  });

  api.get('/sessions/:id/deliverables', async (c) => {
    const { id, read, def } = await stored(c.req.param('id'));
    const deliverables = redactDeep(await sessionDeliverables(store, read, def, host.statusOf(id) ?? undefined));
    if (c.req.query('format') === 'markdown') return c.text(`${deliverablesMarkdown(deliverables).join('\n')}\n`, 200, { 'content-type': 'text/markdown; charset=utf-8' });
    return c.json(deliverables);
  });
}
