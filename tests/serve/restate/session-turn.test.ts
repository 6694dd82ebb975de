import { describe, expect, it } from 'vitest';
import type { TroupeEvent } from '../../../src/engine/event-map.js';
import type { EngineInput } from '../../../src/engine/input-events.js';
import { initialState } from '../../../src/engine/step.js';
import type { ChatModel } from '../../../src/llm/chat-model.js';
import { ScriptedModel, type ScriptStep } from '../../../src/llm/scripted-model.js';
import { runModelCall } from '../../../src/serve/restate/model-call.js';
import type { ModelCall } from '../../../src/serve/restate/records.js';
import { SessionTurn, type SessionRecord, type SessionRuntime } from '../../../src/serve/restate/session-turn.js';
import { PriceTable } from '../../../src/usage/price-table.js';
import { studio, studioRunner } from '../../helpers/team.js';

const team = studio();

/**
 * Runs a session the way the Restate handlers do, without Restate: every input in its own SessionTurn built
 * from the stored record and history (as a handler invocation reads them), model calls run between turns.
 */
async function onRestateCore(model: ChatModel, brief: string, lines: { afterCalls: number; text: string }[] = []) {
  const rt: SessionRuntime = { def: team.def, prompts: team.loaded.prompts, modelFor: team.modelFor, prices: PriceTable.empty(), modelLabel: model.label, demo: false };
  let record: SessionRecord = { state: initialState(team.def, { id: 's-test' }), usage: null, lastSeq: 0 };
  let history: TroupeEvent[] = [];
  const pending: ModelCall[] = [];
  const handle = (apply: (turn: SessionTurn) => void) => {
    const turn = new SessionTurn(rt, record, history, Date.UTC(2026, 0, 1));
    apply(turn);
    record = turn.result();
    history = [...history, ...turn.events];
    pending.push(...turn.calls);
  };
  handle((t) => t.send({ type: 'start', brief, model: model.label }));
  let calls = 0;
  while (pending.length > 0) {
    const call = pending.shift()!;
    const outcome = await runModelCall(() => model, call);
    calls += 1;
    handle((t) => t.applyResult({ call: call.call, model: call.model, outcome }));
    for (const line of lines.filter((l) => l.afterCalls === calls)) handle((t) => t.send({ type: 'user_message', text: line.text } as EngineInput));
  }
  return { history, record };
}

const bare = (events: TroupeEvent[]) => events.filter((e) => e.type !== 'agent_delta').map(({ at: _a, session_id: _s, ...rest }) => rest);

const script = (): ScriptStep[] => [
  { text: 'A calm lighthouse at the edge of the map.', directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'game_designer' }, usage: { promptTokens: 100, completionTokens: 20 } },
  { text: 'Three rooms, one lamp, a storm.', directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'lead_engineer' }, usage: { promptTokens: 200, completionTokens: 30 } },
  { text: 'Buildable in a month.', directive: { transition: 'RESPOND_TO_USER' }, usage: { promptTokens: 300, completionTokens: 10 } },
];

describe('a session turn (the Restate handlers\' core)', () => {
  it('produces the same events, prompts and usage as the embedded session on the same model', async () => {
    const embeddedModel = new ScriptedModel(script());
    const { runner, events } = await studioRunner(embeddedModel);
    runner.start('A lighthouse keeper game');
    await runner.settled();
    const restateModel = new ScriptedModel(script());
    const { history, record } = await onRestateCore(restateModel, 'A lighthouse keeper game');
    expect(bare(history)).toEqual(bare(events));
    expect(restateModel.calls.map((c) => c.messages)).toEqual(embeddedModel.calls.map((c) => c.messages));
    expect(record.state).toEqual(runner.getSnapshot());
    expect(record.usage).toMatchObject({ session: { calls: 3, promptTokens: 600, completionTokens: 60 } });
  });

  it('turns a failing model into a failed turn (the session waits for the user), never a thrown error', async () => {
    const { record, history } = await onRestateCore(new ScriptedModel([{ error: new Error('upstream down') }]), 'x');
    expect(record.state.awaiting?.code).toBe('failure');
    expect(history.some((e) => e.type === 'error' || e.type === 'awaiting_user')).toBe(true);
  });

  it('takes a typed line with the terminal UI\'s own code: an interjection, then !status', async () => {
    const model = new ScriptedModel([...script(), { text: 'Cosy it is.', directive: { transition: 'RESPOND_TO_USER' } }]);
    const { record, history } = await onRestateCore(model, 'A lighthouse keeper game', [{ afterCalls: 3, text: 'Make it cosy' }]);
    expect(model.calls.at(-1)!.messages.at(-1)!.content).toContain('Make it cosy');
    expect(history.filter((e) => e.type === 'user_input').map((e) => (e as { text: string }).text)).toContain('Make it cosy');
    const turn = new SessionTurn({ def: team.def, prompts: team.loaded.prompts, modelFor: team.modelFor, prices: PriceTable.empty(), modelLabel: 'm', demo: false }, record, history, 0);
    const { executeLine } = await import('../../../src/commands/execute.js');
    const out = executeLine('!status', { session: turn.lineSession(), usage: () => turn.lineUsage() });
    expect(out).toMatchObject({ kind: 'output', title: 'status' });
    expect(turn.events).toEqual([]);
  });
});
