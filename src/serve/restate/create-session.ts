import * as restate from '@restatedev/restate-sdk';
import { initialState } from '../../engine/step.js';
import { sizeProblem } from '../../llm/limits.js';
import { teamKind } from '../../session/session-kind.js';
import { workflowKind } from '../../session/workflow-kind.js';
import { checkId } from '../../store/store.js';
import { isWorkflowPath } from '../../workflow/load/locate.js';
import { inputProblem } from '../../workflow/run/frames.js';
import type { WorkflowPlan } from '../../workflow/run/plan.js';
import { parse, refuse, restateView, sendApply } from './handler-common.js';
import { INDEX_KEY, RESTATE_NAMES } from './names.js';
import { networkProblem, type WorkerRuntime } from './object-session.js';
import { CreateRequestSchema, headState, type IndexEntry, type SessionCore, type SessionHead, type SessionMeta } from './records.js';
import { KEYS, readMeta, writeCore } from './session-store.js';
import { readLearned } from './learning-object.js';

/**
 * `create`: stores a new session (a team on a brief, or a named workflow of the worker on an input) with its
 * engine state before the start, enters it in the index and sends `apply` to start it; 409 when the key holds one.
 */
export async function createSession(ctx: restate.ObjectContext, rt: WorkerRuntime, raw: unknown): Promise<Record<string, unknown>> {
  const request = parse(CreateRequestSchema, raw);
  try {
    checkId(ctx.key);
  } catch (error) {
    throw refuse(400, (error as Error).message);
  }
  if (await readMeta(ctx)) throw refuse(409, `session ${ctx.key} already exists`);
  let plan: WorkflowPlan | null = null;
  if (request.workflow !== undefined) {
    if (!rt.workflows) throw refuse(400, 'workflow: these workers run no workflows');
    // A path would run any workflow file the worker can read: only its named workflows run, unless it was started to allow paths.
    if (!rt.allowWorkflowPaths && isWorkflowPath(request.workflow)) {
      throw refuse(
        403,
        "workflow: give the name of one of the workers' workflows (troupe workflows lists them), not a path; paths run only on workers started with troupe worker --allow-workflow-paths",
      );
    }
    try {
      plan = rt.workflows.load(request.workflow);
    } catch (error) {
      throw refuse(400, `workflow: ${(error as Error).message.split('\n')[0]}`);
    }
    // As openSession does for the embedded backend: the network is the worker's operator's to give, never the workflow file's.
    const network = networkProblem(plan, rt);
    if (network) throw refuse(400, network);
    const refused = inputProblem(plan, request.input ?? request.brief ?? '');
    if (refused) throw refuse(400, `input: ${refused}`);
  } else if (!request.brief) throw refuse(400, 'brief: a team session needs a brief');
  const brief = request.brief ?? request.input ?? '';
  const problem = sizeProblem('brief', brief);
  if (problem) throw refuse(400, `brief: ${problem}`);
  const tiers = request.models ? { tiers: request.models } : {};
  const kind = plan ? workflowKind(plan, rt.team, { env: rt.env, ...tiers }) : teamKind(rt.team, { env: rt.env, ...tiers });
  const at = await ctx.date.now();
  const createdAt = new Date(at).toISOString();
  const meta: SessionMeta = {
    version: 2,
    id: ctx.key,
    team: rt.team.def.name,
    kind: plan ? 'workflow' : 'team',
    workflow: plan?.name ?? null,
    model: rt.model.label,
    ...(request.models ? { tiers: request.models } : {}),
    createdAt,
  };
  const state = initialState(kind.def, { id: ctx.key, ...(request.mode ? { mode: request.mode } : {}) });
  // What the team's (or workflow's) sessions did so far, read once: the session's predictions learn from it.
  const learned = await readLearned(ctx, kind.def);
  const core: SessionCore = { state, brief, lastSeq: 0, memory: null, usage: null, demo: null, detached: false, live: request.live ?? null, transitions: {}, learned };
  const head: SessionHead = { lastSeq: 0, updatedAt: createdAt, state: headState(state), usage: null };
  ctx.set(KEYS.meta, meta);
  if (plan) ctx.set(KEYS.plan, plan);
  writeCore(ctx, core, { withState: true });
  ctx.set(KEYS.head, head);
  const entry: IndexEntry = { id: ctx.key, brief, team: rt.team.def.name, createdAt };
  ctx.genericSend({ service: RESTATE_NAMES.index, method: 'add', key: INDEX_KEY, parameter: entry, inputSerde: restate.serde.json });
  sendApply(ctx, { at });
  return restateView(meta, head);
}
