import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DemoModel } from '../../src/llm/demo-model.js';
import { openSession } from '../../src/session/open-session.js';
import { parseSessionFile } from '../../src/store/load-file.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { SessionDocumentSchema, type SessionDocument } from '../../src/store/session-file.js';
import { loadWorkflowOrThrow } from '../../src/workflow/load/load-workflow.js';
import type { WorkflowPlan } from '../../src/workflow/run/plan.js';
import { fixedClock, REPO_ROOT, studio } from '../helpers/team.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { ENV } from './support.js';

const temp = tempDirPerTest('troupe-new-doc-');

/** The document openSession hands LowdbStore.create for a new session, run through the whole schema as a resume reads it. */
async function createdDocument(options: { workflow?: WorkflowPlan; brief: string; memory?: boolean }): Promise<SessionDocument> {
  const store = new LowdbStore(temp());
  const created: SessionDocument[] = [];
  const create = store.create.bind(store);
  store.create = (doc) => (created.push(doc), create(doc));
  const session = await openSession({ team: studio(), model: new DemoModel(), store, id: 'fresh', env: ENV, clock: fixedClock(), ...options });
  await session.stop();
  expect(created).toHaveLength(1);
  const text = JSON.stringify(created[0]);
  const whole = SessionDocumentSchema.safeParse(JSON.parse(text));
  expect(whole.success ? null : whole.error.issues[0]).toBeNull();
  return parseSessionFile(text, 'fresh.json').file;
}

/** Every workflow shipped in workflows/ (files and folders), by path. */
function shippedWorkflows(): string[] {
  const root = join(REPO_ROOT, 'workflows');
  return readdirSync(root)
    .filter((name) => name !== 'roles.json')
    .map((name) => join(root, name));
}

describe('a new session document', () => {
  // create checks only the fields that come from outside (newDocumentSchema); the state, checkpoint and
  // plan it does not check must be valid by construction, which these documents show.
  it('built for a team session passes the whole schema', async () => {
    for (const memory of [true, false]) {
      const doc = await createdDocument({ brief: 'A lighthouse keeper game', memory });
      expect(doc.base.id).toBe('fresh');
      expect(doc.workflow).toBeUndefined();
    }
  });

  it('built for each shipped workflow session passes the whole schema, plan included', async () => {
    const paths = shippedWorkflows();
    expect(paths.length).toBeGreaterThanOrEqual(8);
    for (const path of paths) {
      const plan = loadWorkflowOrThrow(path, { cwd: REPO_ROOT, team: studio().loaded });
      const doc = await createdDocument({ workflow: plan, brief: 'Write a haiku' });
      expect(doc.workflow?.plan, path).toEqual(JSON.parse(JSON.stringify(plan)));
    }
  });

  it('is refused when a field from outside breaks the schema, with the schema message, and leaves no files', async () => {
    const dir = temp();
    const store = new LowdbStore(dir);
    const good = await createdDocument({ brief: 'x' });
    const cases: [Partial<SessionDocument> | Record<string, unknown>, string][] = [
      [{ team: { ...good.team, maxTurns: 10 ** 12 } }, 'cannot create session bad: team.maxTurns: Too big: expected number to be <=100000'],
      [{ brief: 7 }, 'cannot create session bad: brief: Invalid input: expected string, received number'],
      [{ mode: 'chaos' }, 'cannot create session bad: mode: Invalid option: expected one of "fsm"|"simple"'],
      [{ workflow: { name: 'w', source: 3 } }, 'cannot create session bad: workflow.source: Invalid input: expected string, received number'],
    ];
    for (const [change, message] of cases) {
      await expect(store.create({ ...good, id: 'bad', ...change } as SessionDocument)).rejects.toThrow(message);
      expect(existsSync(join(dir, 'sessions', 'bad.json'))).toBe(false);
      expect(existsSync(join(dir, 'sessions', 'bad.jsonl'))).toBe(false);
    }
  });
});
