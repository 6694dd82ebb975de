import * as restate from '@restatedev/restate-sdk';
import { z } from 'zod';
import type { MachineDefinition } from '../../engine/definition.js';
import { keyOf, LEARN_SESSIONS, type StoredSessions } from '../../warming/learned.js';
import { transitionTableOf, type TransitionTable } from '../../warming/transitions.js';
import { parse } from './handler-common.js';
import { RESTATE_NAMES } from './names.js';
import type { LearnedSession, SessionMeta } from './records.js';

// Sessions kept per team or workflow: twice what a new session learns from, as the embedded backend keeps.
const KEEP = 2 * LEARN_SESSIONS;
const RememberSchema = z.object({ id: z.string(), transitions: z.record(z.string(), z.record(z.string(), z.number())) });

/**
 * The `troupe_learning` object, keyed by what sessions run (`team:<name>`, `workflow:<name>`): the transition
 * counts of its newest sessions (seed 004's learning from use, as the embedded backend reads them from stored
 * checkpoints). A session sends its counts when an invocation changed them; a new session reads them once,
 * at its creation, and keeps them in its state, so no turn waits on another object.
 */
export function learningObject() {
  return restate.object({
    name: RESTATE_NAMES.learning,
    handlers: {
      /** Keeps one session's counts (replacing what it sent before), the newest KEEP sessions. */
      remember: async (ctx: restate.ObjectContext, raw: unknown) => {
        const { id, transitions } = parse(RememberSchema, raw);
        const table = transitionTableOf(transitions);
        if (!table) return;
        const kept = (await ctx.get<LearnedSession[]>('sessions')) ?? [];
        ctx.set('sessions', [...kept.filter((s) => s.id !== id), { id, transitions: table }].slice(-KEEP));
      },
      /** The newest LEARN_SESSIONS sessions' counts, newest first. */
      list: restate.handlers.object.shared(async (ctx: restate.ObjectSharedContext): Promise<LearnedSession[]> => {
        const kept = (await ctx.get<LearnedSession[]>('sessions')) ?? [];
        return kept.slice(-LEARN_SESSIONS).reverse();
      }),
    },
  });
}

/** Reads what the definition's newest sessions did (at a session's creation). */
export function readLearned(ctx: restate.ObjectContext, def: MachineDefinition): Promise<LearnedSession[]> {
  return ctx.genericCall({ service: RESTATE_NAMES.learning, method: 'list', key: keyOf(def), parameter: null, inputSerde: restate.serde.json, outputSerde: restate.serde.json });
}

/** Tells the definition's learning object a session's counts (at the end of an invocation that changed them). */
export function sendLearned(ctx: restate.ObjectContext, def: MachineDefinition, id: string, transitions: TransitionTable): void {
  ctx.genericSend({ service: RESTATE_NAMES.learning, method: 'remember', key: keyOf(def), parameter: { id, transitions }, inputSerde: restate.serde.json });
}

/** The sessions a session learns from, as learning reads a store: its team's (or workflow's) listings with their counts. */
export function learnedSessions(meta: SessionMeta, learned: readonly LearnedSession[]): StoredSessions {
  const listing = (transitions: TransitionTable) => ({ team: meta.team, workflow: meta.workflow, transitions });
  return { list: async () => learned.map((s) => ({ id: s.id, listing: listing(s.transitions) })) };
}
