import { describe, expect, it } from 'vitest';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import { openSession } from '../../src/session/open-session.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { usageState, UsageMeter } from '../../src/usage/usage-meter.js';
import { editStoredDocument } from '../helpers/stored-document.js';
import { tempDirPerTest } from '../helpers/temp-dir.js';
import { REPO_ROOT, studio } from '../helpers/team.js';

const temp = tempDirPerTest('troupe-usage-');
const ENV = { TROUPE_MODEL: 'test-model' };

async function storedRun(dir: string): Promise<UsageMeter> {
  const meter = new UsageMeter();
  const session = await openSession({ team: studio(), teamDir: REPO_ROOT, model: new DemoModel(), store: new LowdbStore(dir), id: 'u', env: ENV, meter });
  session.start('A lighthouse keeper game');
  await session.settled();
  await session.stop({ reason: 'awaiting_user' });
  return meter;
}

describe('usage totals of a reopened session', () => {
  it('continue from the checkpoint', async () => {
    const dir = temp();
    const before = await storedRun(dir);
    const meter = new UsageMeter();
    const session = await openSession({ store: new LowdbStore(dir), resume: 'u', team: studio(), model: new DemoModel(), env: ENV, meter });
    expect(usageState(meter)).toEqual(usageState(before));
    await session.stop();
  });

  it.each([
    ['"oops"', 'oops'],
    ['a negative count', { session: { calls: -3, promptTokens: 1, completionTokens: 1, cost: 0, unpricedCalls: 0 } }],
  ])('when damaged (%s), are rebuilt from the journal, and a note says so', async (_what, damaged) => {
    const dir = temp();
    const before = await storedRun(dir);
    const path = await editStoredDocument(dir, 'u', (doc) => {
      doc.checkpoint.usage = damaged;
    });
    const meter = new UsageMeter();
    const notes: string[] = [];
    const session = await openSession({ store: new LowdbStore(dir), resume: 'u', team: studio(), model: new DemoModel(), env: ENV, meter });
    for (const e of session.recent() as TroupeEvent[]) if (e.type === 'note') notes.push(e.text);
    expect(meter.session).toEqual(before.session);
    expect(meter.session.calls).toBeGreaterThan(5);
    expect(notes.at(-1)).toMatch(
      new RegExp(
        `^${path}: checkpoint\\.usage(\\.session\\.calls)?: .* — the usage totals were rebuilt from the journal's ${before.session.calls} usage event\\(s\\), so budgets continue from there$`,
      ),
    );
    await session.stop();
  });
});
