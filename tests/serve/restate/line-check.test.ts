import { describe, expect, it } from 'vitest';
import { executeLine } from '../../../src/commands/execute.js';
import { initialState, step } from '../../../src/engine/step.js';
import { LineCheck, lineUsage } from '../../../src/serve/restate/line-check.js';
import { UsageMeter, usageState } from '../../../src/usage/usage-meter.js';
import { PriceTable } from '../../../src/usage/price-table.js';
import { studio } from '../../helpers/team.js';

describe('a line checked against a session on Restate (the shared `line` handler)', () => {
  const def = studio().def;
  const running = step(def, initialState(def, { id: 's' }), { type: 'start', brief: 'b', model: 'm' }).session;
  const check = (text: string) => {
    const c = new LineCheck(def, running, 'm', async () => []);
    const outcome = executeLine(text, { session: c, usage: () => lineUsage(null, PriceTable.empty(), false) });
    return { outcome, inputs: c.inputs, cuts: c.cutsOff() };
  };

  it('captures the inputs a line would send, without changing the session', () => {
    expect(check('Make it cosy').inputs).toEqual([{ type: 'user_message', text: 'Make it cosy' }]);
    expect(check('!status')).toMatchObject({ inputs: [], cuts: false, outcome: { kind: 'output', title: 'status' } });
  });

  it('says which lines cut off the call in flight (an interjection, !handoff, !rework, !quit) and which do not (!approve, !simple)', () => {
    expect(['Make it cosy', '!handoff lead_engineer', '!rework more', '!quit'].map((l) => check(l).cuts)).toEqual([true, true, true, true]);
    expect(['!approve', '!simple', '!continue'].map((l) => check(l).cuts)).toEqual([false, false, false]);
  });

  it('reads !cost from the stored meter state', () => {
    const meter = new UsageMeter(PriceTable.empty());
    meter.record('creative_partner', 'test-model', { promptTokens: 50, completionTokens: 20 });
    meter.record(null, 'test-model', { promptTokens: 10, completionTokens: 5 });
    const usage = lineUsage(usageState(meter), PriceTable.empty(), false);
    expect([usage.session.calls, usage.session.promptTokens + usage.session.completionTokens, Object.keys(usage.byPersona)]).toEqual([2, 85, ['creative_partner', '(memory)']]);
    expect(lineUsage({ damaged: true }, PriceTable.empty(), true)).toMatchObject({ session: { calls: 0 }, free: true });
  });
});
