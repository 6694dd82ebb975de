import { resolve } from 'node:path';
import { openTeam, type OpenTeam } from '../../src/team/open-team.js';
import type { ChatModel } from '../../src/llm/chat-model.js';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import type { Mode } from '../../src/engine/session.js';
import { openSession, type OpenSessionOptions } from '../../src/session/open-session.js';
import type { TroupeSession } from '../../src/session/troupe-session.js';

/** Root of the repository (holds the shipped team). */
export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');

/** The shipped V7 studio team, with every tier mapped to "test-model". */
export function studio(overrides: { maxTurns?: number } = {}): OpenTeam {
  return openTeam(REPO_ROOT, overrides, { TROUPE_MODEL: 'test-model' });
}

/** A fixed clock for deterministic event stamps: one second later at every reading (epoch ms). */
export function fixedClock(start = Date.UTC(2026, 0, 1)): () => number {
  let t = start;
  return () => (t += 1000);
}

/** A session on the studio team (not stored, full-history prompts unless memory is asked for) collecting every event. */
export async function studioRunner(model: ChatModel, options: { team?: OpenTeam; mode?: Mode } & Partial<OpenSessionOptions> = {}): Promise<{ runner: TroupeSession; events: TroupeEvent[] }> {
  const { team, mode, ...rest } = options;
  const runner = await openSession({
    team: team ?? studio(),
    model,
    id: 's-test',
    clock: fixedClock(),
    memory: false,
    env: { TROUPE_MODEL: 'test-model' },
    ...(mode ? { mode } : {}),
    ...rest,
  });
  const events: TroupeEvent[] = [];
  runner.subscribe((e) => events.push(e));
  return { runner, events };
}

/** The payloads of the events of one type, without their envelope (session id, seq, time). */
export function payloads<T extends TroupeEvent['type']>(events: readonly TroupeEvent[], type: T): Omit<Extract<TroupeEvent, { type: T }>, 'type' | 'session_id' | 'seq' | 'at'>[] {
  return events.filter((e): e is Extract<TroupeEvent, { type: T }> => e.type === type).map(({ type: _t, session_id: _s, seq: _n, at: _a, ...rest }) => rest as never);
}
