import { join } from 'node:path';
import { TerminalError } from '@restatedev/restate-sdk';
import { describe, expect, it } from 'vitest';
import { kindOf, type WorkerRuntime } from '../../../src/serve/restate/object-session.js';
import type { SessionMeta } from '../../../src/serve/restate/records.js';
import { loadWorkflowOrThrow } from '../../../src/workflow/load/load-workflow.js';
import { REPO_ROOT, studio } from '../../helpers/team.js';

// probe15 left this: consent to a workflow's network was checked only when a session was created, so a session made
// on a worker started with --allow-network turned the network on when a worker started without it carried it on
// (workers behind one Restate URL share its sessions). Every invocation opens the session's kind: it asks there.

const WORKFLOW = join(REPO_ROOT, 'tests', 'fixtures', 'workflows', 'hostile', 'network-coder', 'wf.json');
const team = studio();
const plan = loadWorkflowOrThrow(WORKFLOW, { cwd: REPO_ROOT, team: team.loaded });
const meta = { version: 2, id: 'net-1', team: team.def.name, kind: 'workflow', workflow: plan.name, model: 'demo', createdAt: '2026-11-27T00:00:00.000Z' } as SessionMeta;
const ctx = { get: async <T>() => plan as T };
const runtime = (allowNetwork: boolean) => ({ team, env: {}, allowNetwork }) as unknown as WorkerRuntime;

describe('a stored workflow session whose agent turns the network on, on Restate', () => {
  it('is refused in one line by a worker started without --allow-network, at every invocation', async () => {
    const refused = await kindOf(ctx, runtime(false), meta).then(
      () => null,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(TerminalError);
    expect((refused as Error).message).toBe(
      `session net-1: workflow: ${WORKFLOW}: agent coder: command_policy "network": true lets its commands reach the internet and this machine's local services — start the workers with troupe worker --allow-network to let it, or remove "network": true`,
    );
  });

  it('runs on a worker started with --allow-network', async () => {
    const kind = await kindOf(ctx, runtime(true), meta);
    expect(kind.def.kind).toBe('workflow');
  });
});
