import type { ObjectContext, ObjectSharedContext } from '@restatedev/restate-sdk';
import * as restate from '@restatedev/restate-sdk';
import { join } from 'node:path';
import type { EngineEvent } from '../../engine/event-map.js';
import type { EffectPort, JournalSources } from '../../kernel/ports.js';
import { isLiveOnly } from '../../kernel/session-kernel.js';
import type { ChatModel } from '../../llm/chat-model.js';
import { DemoModel } from '../../llm/demo-model.js';
import type { Evaluator } from '../../kernel/effect-runner.js';
import type { OpenTeam } from '../../team/open-team.js';
import { assembleSession } from '../../session/assemble.js';
import { teamKind, type SessionKind } from '../../session/session-kind.js';
import { workflowKind } from '../../session/workflow-kind.js';
import { networkGrant, networkRefused } from '../../session/plan-grants.js';
import type { TroupeSession } from '../../session/troupe-session.js';
import type { PriceTable } from '../../usage/price-table.js';
import { restoreUsage, UsageMeter, type UsageState } from '../../usage/usage-meter.js';
import type { WorkflowPlan } from '../../workflow/run/plan.js';
import { DemoProgress, DemoSessionModel } from './demo.js';
import type { LiveSender } from './live.js';
import type { SessionCore, SessionMeta } from './records.js';
import { RestateJournal } from './restate-journal.js';
import { RestateSteps } from './restate-steps.js';
import { KEYS, readEvents, readOpenChunk } from './session-store.js';
import { learnedSessions } from './learning-object.js';

/** What every session on a worker shares: the team, the model, prices, workflows, where workspaces go. */
export interface WorkerRuntime {
  team: OpenTeam;
  model: ChatModel;
  prices: PriceTable;
  env: Record<string, string | undefined>;
  /** The worker's data directory: a session's agent workspaces go in `<dataDir>/restate/<id>/workspaces`. */
  dataDir: string;
  /** Resolves a named workflow from the worker's directories (null: the worker runs none). */
  workflows: { load(name: string): WorkflowPlan } | null;
  /** A request may name a workflow by path (else only the named workflows of the worker's directories run). */
  allowWorkflowPaths?: boolean;
  /** A workflow whose agents turn their commands' network on may run (`troupe worker --allow-network`); otherwise refused in one line. */
  allowNetwork?: boolean;
  log: (line: string) => void;
  live: LiveSender;
}

/** A session opened inside one invocation of its object: the kernel's session and the Restate ports it runs on. */
export interface ObjectSession {
  session: TroupeSession;
  publish: (e: EngineEvent) => void;
  effects: EffectPort;
  steps: RestateSteps;
  journal: RestateJournal;
  /** Memory, usage and the last seq, as the session's modules hold them now. */
  sources: JournalSources;
  demo: DemoProgress | null;
  /** Releases the workflow's sandbox (the invocation is over). */
  close(): Promise<void>;
}

/** The line refusing a workflow whose agent turns the network on, when the worker was not started with --allow-network; null when it may run. */
export function networkProblem(plan: WorkflowPlan, rt: Pick<WorkerRuntime, 'allowNetwork'>): string | null {
  const network = networkGrant(plan);
  if (!network || rt.allowNetwork) return null;
  return `workflow: ${networkRefused(network).replace('run with --allow-network', 'start the workers with troupe worker --allow-network')}`;
}

/** The kind of session the object holds: the worker's team (with the session's tiers), or its stored workflow plan. */
export async function kindOf(ctx: Pick<ObjectSharedContext, 'get'>, rt: WorkerRuntime, meta: SessionMeta): Promise<SessionKind> {
  const tiers = meta.tiers ? { tiers: meta.tiers } : {};
  if (meta.kind === 'team') return teamKind(rt.team, { env: rt.env, ...tiers });
  const plan = await ctx.get<WorkflowPlan>(KEYS.plan);
  if (!plan) throw new restate.TerminalError(`session ${meta.id}: its workflow plan is missing — start a new session`, { errorCode: 500 });
  // Consent is the worker's at every invocation, not only at create: a session made on a worker started with
  // --allow-network must not turn the network on when another worker, started without it, carries it on.
  const refused = networkProblem(plan, rt);
  if (refused) throw new restate.TerminalError(`session ${meta.id}: ${refused}`, { errorCode: 400 });
  return workflowKind(plan, rt.team, { env: rt.env, ...tiers });
}

/**
 * Opens a stored session inside an exclusive invocation: the same `assembleSession` as every backend, with
 * Restate's ports — each step of effect work a `ctx.run` (RestateSteps), the journal the object's state
 * (RestateJournal) — and the session's clock at `at` (the input's time; then each kept step's).
 */
export async function openObjectSession(ctx: ObjectContext, rt: WorkerRuntime, meta: SessionMeta, core: SessionCore, at: number): Promise<ObjectSession> {
  const kind = await kindOf(ctx, rt, meta);
  // A line per model call the worker makes (a replay answered from the journal makes none, and says nothing).
  const steps = new RestateSteps(ctx, at, (name) => name.startsWith('model ') && rt.log(`${name} started · session ${meta.id}`));
  const demo = rt.model instanceof DemoModel ? new DemoProgress(core.demo) : null;
  const model = demo ? new DemoSessionModel(demo, rt.model.label) : rt.model;
  const meter = new UsageMeter(rt.prices);
  if (core.usage) restoreUsage(meter, core.usage);
  const open = await readOpenChunk(ctx, core.lastSeq);
  const memory = kind.prompted && rt.team.loaded.team.memory.enabled;
  // A workflow's sandbox is opened here and closed when the invocation ends (stopping the session would wait on work a cancellation abandoned).
  const evaluator: (Evaluator & { close(): Promise<void> }) | null = kind.openEvaluator ? await kind.openEvaluator() : null;
  let journal: RestateJournal | null = null;
  let sources: JournalSources | null = null;
  const { session, publish, effects } = await assembleSession({
    kind,
    team: rt.team,
    state: core.state,
    lastSeq: core.lastSeq,
    clock: steps.clock,
    model,
    meter,
    steps,
    journal: (s) => {
      sources = s;
      journal = new RestateJournal(ctx, core.state, core.lastSeq, open, steps.clock, () => s.usage() as UsageState);
      return journal;
    },
    memory,
    savedMemory: core.memory ?? null,
    // Full-history prompts (memory off) read the transcript once per invocation; with memory nothing is read.
    history: kind.prompted && !memory ? () => readEvents(ctx, 0, core.lastSeq) : null,
    tail: [],
    workspaceRoot: join(rt.dataDir, 'restate', meta.id),
    dataDir: rt.dataDir,
    askCommands: false,
    ...(evaluator ? { evaluator } : {}),
    store: null,
    // Learning reads no store here: what the team's sessions did came with the session's creation (learning-object.ts).
    learnFrom: learnedSessions(meta, core.learned ?? []),
    ...(core.transitions !== undefined ? { savedTransitions: core.transitions } : {}),
    brief: core.brief,
    recent: [],
    keep: 500,
    graceMs: 0,
    env: rt.env,
  });
  if (demo) session.subscribe((e) => demo.feed(e));
  const live = core.live;
  if (live) session.subscribe((e) => isLiveOnly(e.type) && rt.live.push(live, e));
  return { session, publish, effects, steps, journal: journal!, sources: sources!, demo, close: async () => evaluator?.close() };
}
