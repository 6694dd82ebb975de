import { afterEach, describe, expect, it } from 'vitest';
import { DemoModel } from '../../src/llm/demo-model.js';
import { SessionHost } from '../../src/serve/host.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { loadWorkflowOrThrow } from '../../src/workflow/load/load-workflow.js';
import { SandboxPool } from '../../src/workflow/sandbox/pool.js';
import { REPO_ROOT, studio } from '../helpers/team.js';

// Issue 23 item 1: the sandbox threads start with the server, so no workflow session's first evaluation waits for one.
const pools: SandboxPool[] = [];
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

function host(withWorkflows: boolean): SandboxPool {
  const pool = new SandboxPool({ size: 2 });
  pools.push(pool);
  const team = studio();
  const workflows = { load: (name: string) => loadWorkflowOrThrow(name, { cwd: REPO_ROOT, team: team.loaded }) };
  new SessionHost({ store: new MemoryStore(), team, teamDir: REPO_ROOT, env: {}, maxSessions: 10, model: () => new DemoModel(), sandbox: pool, ...(withWorkflows ? { workflows } : {}) });
  return pool;
}

describe('troupe serve starts the sandbox threads with the server', () => {
  it('a host that offers workflows starts every thread before any session exists', () => {
    expect(host(true).started).toBe(2);
  });

  it('a host without workflows starts none', () => {
    expect(host(false).started).toBe(0);
  });
});
