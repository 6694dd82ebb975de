import { describe, expect, it } from 'vitest';
import { inspect } from '../../src/commands/inspect.js';
import type { EngineEvent, TroupeEvent } from '../../src/engine/event-map.js';
import { initialState } from '../../src/engine/step.js';
import { EMPTY_VIEW, reduceEvent, type ViewState } from '../../src/ui/view-model.js';
import { PriceTable } from '../../src/usage/price-table.js';
import { sessionUsage } from '../../src/usage/session-usage.js';
import { formatUsageSummary } from '../../src/usage/summary.js';
import { UsageMeter } from '../../src/usage/usage-meter.js';
import type { WarmingView } from '../../src/warming/warming-view.js';
import { studio } from '../helpers/team.js';

const prices = new PriceTable({ 'gpt-4o': { input: 2.5, cached_input: 1.25, output: 10 } }, 'test');
const predictions = [
  { persona: 'cfo', confidence: 0.62, history: 0.5, context: 0.8, dependency: 0.5 },
  { persona: 'cmo', confidence: 0.2, history: 0.2, context: 0.2, dependency: 0.2 },
];
const totals = { requests: 4, aborted: 1, failed: 0, promptTokens: 8000, cachedTokens: 6000, completionTokens: 4, cost: 0.0125, unpriced: 0 };
const stamp = (e: EngineEvent) => ({ ...e, session_id: 's', seq: 1, at: 0 }) as TroupeEvent;

describe('predictions and warming in the views (issue 24)', () => {
  it('!status names who is likely next while the predicted turn is in flight, and nothing for another turn', () => {
    const team = studio();
    const idle = initialState(team.def, { id: 's' });
    const inFlight = { ...idle, inFlight: { turnId: 't7', persona: 'ceo', path: 'STRATEGIC.ceo', attempt: 1 } } as typeof idle;
    const warming: WarmingView = { mode: 'predict', latest: { turnId: 't7', persona: 'ceo', predictions }, totals };
    const status = (session: typeof idle, w: WarmingView | null) => inspect('status', { def: team.def, session, events: [], usage: sessionUsage(new UsageMeter()), warming: w }).lines;
    expect(status(inFlight, warming)).toContain('likely next (predicted): CFO 62% · CMO 20%');
    expect(status(idle, warming).some((l) => l.includes('likely next'))).toBe(false);
    expect(status(inFlight, null).some((l) => l.includes('likely next'))).toBe(false);
  });

  it('!cost and the run summary give each persona its cache hit rate, and !cost counts warming apart', () => {
    const team = studio();
    const meter = new UsageMeter(prices);
    meter.record('ceo', 'gpt-4o', { promptTokens: 1000, completionTokens: 100, cachedTokens: 900 });
    meter.record('cfo', 'gpt-4o', { promptTokens: 1000, completionTokens: 100, cachedTokens: 0 });
    const cost = inspect('cost', { def: team.def, session: initialState(team.def, { id: 's' }), usage: sessionUsage(meter), events: [], warming: { mode: 'prefix', latest: null, totals } }).lines;
    expect(cost.find((l) => l.startsWith('CEO'))).toMatch(/ 90% cached$/);
    expect(cost.find((l) => l.startsWith('CFO'))).toMatch(/ 0% cached$/);
    expect(cost).toContain('cache warming (apart): 4 request(s), 1 aborted, 0 failed, 8,000 prompt tokens (6,000 cached), cost $0.0125');
    // The session's own total leaves warming out.
    expect(cost.find((l) => l.startsWith('total'))).toMatch(/2 call\(s\)/);
    expect(formatUsageSummary(sessionUsage(meter)).find((l) => l.includes('ceo'))).toMatch(/90% cached$/);
    const unreported = new UsageMeter(prices);
    unreported.record('ceo', 'gpt-4o', { promptTokens: 1000, completionTokens: 100 });
    expect(
      inspect('cost', {
        def: team.def,
        session: initialState(team.def, { id: 's' }),
        usage: sessionUsage(unreported),
        events: [],
        warming: { mode: 'predict', latest: null, totals: { ...totals, requests: 0 } },
      }).lines.some((l) => l.includes('cache')),
    ).toBe(false);
  });

  it("the UI's live turn carries its prediction (the state line shows it), and drops one for another turn", () => {
    const fold = (events: EngineEvent[], v: ViewState = EMPTY_VIEW) => events.reduce((acc, e) => reduceEvent(acc, stamp(e)), v);
    const live = fold([
      { type: 'agent_started', turn_id: 't1', path: 'STRATEGIC.ceo', persona: 'ceo', attempt: 1, model: 'm', inbox: 'brief' },
      { type: 'prediction', turn_id: 't1', persona: 'ceo', on: 'inbox', predictions },
      { type: 'prediction', turn_id: 't0', persona: 'cmo', on: 'inbox', predictions: [] },
    ]);
    expect(live.live?.predicted).toEqual(predictions);
    expect(live.log).toEqual([]);
  });
});
