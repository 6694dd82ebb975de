import type { MachineDefinition } from '../engine/definition.js';
import type { Effect } from '../engine/effects.js';
import type { TroupeEvent } from '../engine/event-map.js';
import type { EngineInput } from '../engine/input-events.js';
import type { SessionState } from '../engine/session.js';
import type { ChatModel } from '../llm/chat-model.js';
import type { AttachedMemory } from '../memory/attach-memory.js';
import type { Memory, MemorySnapshot } from '../memory/memory.js';
import { settleMemory } from '../memory/settle.js';
import { loadTokenizer } from '../memory/tokens.js';
import type { EffectPort, JournalPort } from '../kernel/ports.js';
import type { SessionKernel, SessionListener } from '../kernel/session-kernel.js';
import type { OpenTeam } from '../team/open-team.js';
import type { Store } from '../store/store.js';
import { sessionUsage, type SessionUsage } from '../usage/session-usage.js';
import type { UsageMeter } from '../usage/usage-meter.js';
import type { CommandApprovals } from './approvals.js';
import type { WarmingSettings } from '../config/team-schema.js';
import type { WarmingTotals } from '../warming/ledger.js';
import type { SessionWarming } from '../warming/session-warming.js';

/** What a session is assembled from (by assembleSession). */
export interface SessionParts {
  kernel: SessionKernel;
  effects: EffectPort;
  /** Where its steps are kept (null: nowhere, the session lives in this process). */
  journal: JournalPort | null;
  team: OpenTeam;
  model: ChatModel;
  /** The session's usage meter (restored on resume from the checkpoint and the journal after it). */
  meter: UsageMeter;
  memory: AttachedMemory | null;
  store: Store | null;
  /** The stored brief (a session killed before its first step starts on it when resumed). */
  brief: string;
  /** The newest stored events of a reopened session. */
  recent: readonly TroupeEvent[];
  /** How many recent events to keep in memory. */
  keep: number;
  graceMs: number;
  /** Commands waiting for the user's `!allow` / `!deny`. */
  approvals: CommandApprovals;
  /** Releases what the session owns besides its store (a workflow's sandbox), once it stopped. */
  onStop?: () => Promise<void>;
  /** Where its agents' workspaces are made (`<root>/workspaces/<name>`). */
  workspaceRoot?: string;
  /** The session it was forked from, and at which step. */
  forkedFrom?: { id: string; step: number } | null;
  /** Its state warming: predictions and warming requests (null: off, or not a team session). */
  warming?: SessionWarming | null;
}

/** How a process lets go of a session that is not over. */
export interface Detach {
  reason: string;
  detail?: string;
}

/**
 * A running session, as embedders, the CLI and the UI use it: `send(input)`, `subscribe(listener)`,
 * `getSnapshot()`, `stop()`; plus what the commands read (memory, recent events, the whole history).
 */
export class TroupeSession {
  private readonly parts: SessionParts;
  private recentEvents: TroupeEvent[];
  private stopped = false;

  constructor(parts: SessionParts) {
    this.parts = parts;
    this.recentEvents = [...parts.recent];
    parts.kernel.subscribe((e) => {
      if (e.type === 'agent_delta') return;
      this.recentEvents.push(e);
      if (this.recentEvents.length > parts.keep * 2) this.recentEvents = this.recentEvents.slice(-parts.keep);
    });
  }

  /** Where its agents' workspaces are made: `<workspaceRoot>/workspaces/<branch or agent>` (null when not known). */
  get workspaceRoot(): string | null {
    return this.parts.workspaceRoot ?? null;
  }

  /** The session it was forked from and the step it was forked at (null: not a fork). */
  get forkedFrom(): { id: string; step: number } | null {
    return this.parts.forkedFrom ?? null;
  }

  /** The session id. */
  get id(): string {
    return this.parts.kernel.id;
  }

  /** The definition the session runs. */
  get def(): MachineDefinition {
    return this.parts.kernel.def;
  }

  /** The team it runs (its config, prompts and persona models). */
  get team(): OpenTeam {
    return this.parts.team;
  }

  /** The model it calls (before metering): its label and whether it is the offline demo. */
  get model(): ChatModel {
    return this.parts.model;
  }

  /**
   * The session's usage: the meter's totals, read now (a resumed session's include every call before it).
   * The one source views read (footer, `!cost`, the run summary, the API); they never count `usage` events.
   */
  usage(): SessionUsage {
    return sessionUsage(this.parts.meter, { free: Boolean(this.parts.model.free) });
  }

  /** Where the session is stored, or null when it is not. */
  get location(): string | null {
    return this.parts.journal?.location ?? null;
  }

  /** The store holding it, or null. */
  get store(): Store | null {
    return this.parts.store;
  }

  /** Why the session stopped saving (the message names the file and the cause), or null. */
  get fault(): Error | null {
    return this.parts.kernel.fault;
  }

  /** Feeds an input to the engine (a user action, or `{ type: 'start', brief }`). */
  send(input: EngineInput): void {
    this.parts.kernel.send(input);
  }

  /** Starts the session on a brief. */
  start(brief: string): void {
    this.send({ type: 'start', brief, model: this.parts.model.label });
  }

  /** Subscribes to every event with the state after it; returns the unsubscribe function. */
  subscribe(listener: SessionListener): () => void {
    return this.parts.kernel.subscribe(listener);
  }

  /** The current session state. */
  getSnapshot(): SessionState {
    return this.parts.kernel.getSnapshot();
  }

  /** Resolves once no model call is in flight (the session waits for the user, has ended or stopped). */
  settled(): Promise<void> {
    return this.parts.kernel.settled();
  }

  /**
   * Continues a reopened session where it stopped: re-runs the turn that was in flight (its result was
   * never applied), or starts on the stored brief when the process died before the first step.
   */
  resume(): void {
    const s = this.getSnapshot();
    if (s.status === 'idle' && this.parts.brief) return this.start(this.parts.brief);
    if (s.status !== 'running') return;
    const effects = this.parts.effects;
    // Work already in progress here (started by an input just applied) is not started twice.
    const run = (effect: Effect) => effects.running?.(effect) || effects.execute(effect);
    if (s.inFlight) run({ type: 'call_agent', call: s.inFlight });
    // A fan-out's unfinished branches run again; the finished ones keep their results.
    for (const effect of this.def.policy.resumeEffects?.(s) ?? []) run(effect);
  }

  /** Commands agents wait to run until the user answers `!allow` / `!deny`. */
  get approvals(): CommandApprovals {
    return this.parts.approvals;
  }

  /** The rolling memory (null when memory is off); read it, the session feeds it. */
  get memory(): Memory | null {
    return this.parts.memory?.memory ?? null;
  }

  /** What the rolling memory holds now, or null when memory is off. */
  memorySnapshot(): MemorySnapshot | null {
    return this.parts.memory?.memory.snapshot() ?? null;
  }

  /** State warming: the latest prediction of who speaks next and what warming requests used (null when off or not a team). */
  warming(): { mode: WarmingSettings['mode']; latest: SessionWarming['latest']; totals: WarmingTotals } | null {
    const w = this.parts.warming;
    return w ? { mode: w.mode, latest: w.latest, totals: w.totals } : null;
  }

  /** The newest events (a bounded window; the whole log is `history()`). */
  recent(): readonly TroupeEvent[] {
    return this.recentEvents;
  }

  /** The whole event log: read from the store, or the window when the session is not stored. */
  async history(): Promise<TroupeEvent[]> {
    const { store } = this.parts;
    if (!store) return [...this.recentEvents];
    return (await store.read(this.id)).events;
  }

  /** Loads what its first turn needs (the tokenizer with memory on, the model's SDK) in the background; the turn loads it otherwise. */
  async preload(): Promise<void> {
    await Promise.all([this.parts.memory ? loadTokenizer() : null, this.parts.model.preload?.()]);
  }

  /** Waits (briefly) for background memory work, so its events land before the run reports its end. */
  async settleMemory(ms = this.parts.graceMs): Promise<void> {
    await settleMemory(this.parts.memory, ms);
    // A summary call's usage waits for a step that may not come: written and delivered now.
    this.parts.kernel.flushHeld();
  }

  /**
   * Lets go of the session: detaches it (when a reason is given and it is not over), aborts calls in
   * flight (their turns are re-run on resume), waits briefly for memory, writes the final checkpoint and
   * releases the store. Throws the save failure, if saving failed.
   */
  async stop(detach?: Detach): Promise<void> {
    if (this.stopped) return;
    this.stopped = true;
    const { kernel, effects, journal } = this.parts;
    if (detach && kernel.getSnapshot().status !== 'ended') kernel.send({ type: 'detach', ...detach });
    this.parts.approvals.refuseAll();
    effects.abortAll();
    await effects.idle();
    await this.settleMemory();
    if (journal) await journal.close();
    await this.parts.onStop?.();
    if (kernel.fault) throw kernel.fault;
  }
}
