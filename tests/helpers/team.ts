import { resolve } from 'node:path';
import { openTeam, type OpenTeam } from '../../src/runtime/open-team.js';
import { Runner } from '../../src/runtime/runner.js';
import type { ChatModel } from '../../src/llm/chat-model.js';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import type { Mode } from '../../src/engine/definition.js';

/** Root of the repository (holds the shipped team). */
export const REPO_ROOT = resolve(import.meta.dirname, '..', '..');

/** The shipped V7 studio team, with every tier mapped to "test-model". */
export function studio(overrides: { maxTurns?: number } = {}): OpenTeam {
  return openTeam(REPO_ROOT, overrides, { TROUPE_MODEL: 'test-model' });
}

/** A fixed clock for deterministic event stamps. */
export function fixedClock(start = Date.UTC(2026, 0, 1)): () => Date {
  let t = start;
  return () => new Date((t += 1000));
}

/** A runner on the studio team with a given model, collecting every event. */
export function studioRunner(model: ChatModel, options: { team?: OpenTeam; mode?: Mode } = {}): { runner: Runner; events: TroupeEvent[] } {
  const team = options.team ?? studio();
  const runner = new Runner({
    def: team.def,
    prompts: team.loaded.prompts,
    model,
    modelFor: team.modelFor,
    sessionId: 's-test',
    clock: fixedClock(),
    ...(options.mode ? { mode: options.mode } : {}),
  });
  const events: TroupeEvent[] = [];
  runner.bus.on('*', (e) => events.push(e));
  return { runner, events };
}
