import { describe, expect, it } from 'vitest';
import { executeLine } from '../../src/commands/execute.js';
import { situation, situationLine } from '../../src/commands/situation.js';
import { sessionUsage } from '../../src/usage/session-usage.js';
import { UsageMeter } from '../../src/usage/usage-meter.js';
import { memoryLines } from '../../src/commands/memory-source.js';
import { FOREVER, ScriptedModel } from '../../src/llm/scripted-model.js';
import { studio, studioRunner } from '../helpers/team.js';

const NO_USAGE = sessionUsage(new UsageMeter());

describe('executeLine', () => {
  it('starts on the first line, steers with commands and publishes them', async () => {
    const model = new ScriptedModel([
      { text: 'Concept.', directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'game_designer' } },
      { text: 'Loop.', directive: { transition: 'RESPOND_TO_USER' } },
      { text: 'Numbers.', directive: { transition: 'RESPOND_TO_USER' } },
    ]);
    const { runner, events } = await studioRunner(model);
    const host = { session: runner, usage: () => NO_USAGE };
    expect(executeLine('a game about bees', host)).toEqual({ kind: 'none' });
    await runner.settled();
    expect(runner.getSnapshot().brief).toBe('a game about bees');
    expect(executeLine('!handoff CFO', host)).toEqual({ kind: 'none' });
    await runner.settled();
    expect(events.find((e) => e.type === 'command')).toMatchObject({ name: 'handoff', args: ['CFO'] });
    expect(model.calls[2]!.meta).toMatchObject({ persona: 'cfo', inbox: 'user_requested' });
  });

  it('answers inspections from the session, usage and memory', async () => {
    const model = new ScriptedModel([{ text: 'Hi.', directive: { transition: 'RESPOND_TO_USER' } }]);
    const { runner } = await studioRunner(model);
    const meter = new UsageMeter();
    meter.record('creative_partner', 'm', { promptTokens: 1200, completionTokens: 0 });
    meter.record(null, 'm', { promptTokens: 300, completionTokens: 0 });
    const host = { session: runner, usage: () => sessionUsage(meter) };
    executeLine('brief', host);
    await runner.settled();
    const status = executeLine('!status', host);
    expect(status).toMatchObject({ kind: 'output', title: 'status', tone: 'info' });
    expect(status.kind === 'output' && status.lines[0]).toBe('state: CREATIVE › Creative Partner');
    const history = executeLine('!history', host);
    expect(history.kind === 'later' && (await history.lines)[0]).toBe('turn 0: USER_INTERACTION › You -> CREATIVE › Creative Partner [system] brief received');
    const cost = executeLine('!cost', host);
    expect(cost.kind === 'output' && cost.lines.join('\n')).toMatch(
      /Creative Partner\s+1 call\(s\)\s+1200 tokens\s+cost unknown \(no price\)\nmemory summaries\s+1 call\(s\)\s+300 tokens[\s\S]*total\s+2 call\(s\)\s+1500 tokens/,
    );
    expect(executeLine('!memory', host)).toMatchObject({ lines: ['memory not enabled: every prompt carries the full history'] });
    const withMemory = executeLine('!memory', { ...host, memory: () => ({ pinned: ['Scope: 6 chapters'], summaries: [{ decisions: ['go'], discussions: ['tone'], pending: ['price?'] }] }) });
    expect(withMemory.kind === 'output' && withMemory.lines).toEqual([
      'pinned decisions (1):',
      '  ✔ Scope: 6 chapters',
      'summaries (1):',
      '  #1',
      '    decision: go',
      '    discussed: tone',
      '    pending: price?',
    ]);
    expect(executeLine('/workflow review', host)).toMatchObject({ kind: 'output', tone: 'error', lines: [expect.stringContaining('troupe run --workflow')] });
    expect(executeLine('!nope', host)).toMatchObject({ kind: 'output', tone: 'error' });
  });

  it('quits: leaves with the session resumable, a turn in flight unapplied', async () => {
    const model = new ScriptedModel([{ text: 'slow', directive: { transition: 'RESPOND_TO_USER' }, hold: FOREVER }]);
    const { runner, events } = await studioRunner(model);
    runner.start('brief');
    await model.started(1);
    expect(executeLine('!quit', { session: runner, usage: () => NO_USAGE })).toEqual({ kind: 'quit' });
    await runner.settled();
    expect(runner.getSnapshot().status).toBe('running');
    expect(runner.getSnapshot().inFlight).toMatchObject({ persona: 'creative_partner' });
    // Leaving detaches the session (it is not over): no session_ended.
    expect(events.at(-1)).toMatchObject({ type: 'session_detached', reason: 'user_left' });
    expect(events.some((e) => e.type === 'session_ended')).toBe(false);
  });
});

describe('situation', () => {
  it('shows the predicted next state before the brief and in the pipeline', async () => {
    const { runner } = await studioRunner(new ScriptedModel([{ text: 'x', directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'ceo' }, hold: FOREVER }]), { mode: 'simple' });
    expect(situationLine(situation(runner.def, runner.getSnapshot()))).toBe('USER_INTERACTION › You -> next: CREATIVE › Creative Partner');
    runner.start('brief');
    expect(situationLine(situation(runner.def, runner.getSnapshot()))).toBe('CREATIVE › Creative Partner -> next: CREATIVE › Game Designer');
    runner.send({ type: 'user_quit' });
  });

  it('switched to simple at a persona of no stage: the stage says the pipeline starts at its first ("off the pipeline" said nothing of what comes)', async () => {
    const model = new ScriptedModel([
      { text: 'never finished', hold: FOREVER },
      { text: 'Tell me more.', directive: { transition: 'RESPOND_TO_USER' } },
    ]);
    const { runner } = await studioRunner(model);
    runner.start('brief');
    await model.started(1);
    runner.send({ type: 'user_handoff', target: 'ceo' });
    await runner.settled();
    runner.send({ type: 'user_mode', mode: 'simple' });
    expect(situation(runner.def, runner.getSnapshot()).stage).toBe('off the pipeline (Ideation next)');
  });

  it('shows the transition held at an approval gate as pending', async () => {
    const team = studio();
    team.def.team!.approval = 'every';
    const model = new ScriptedModel([
      { text: 'never finished', hold: FOREVER },
      { text: 'Over to the CFO.', directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'cfo' } },
    ]);
    const { runner } = await studioRunner(model, { team });
    runner.start('brief');
    await model.started(1);
    runner.send({ type: 'user_handoff', target: 'ceo' });
    await runner.settled();
    const sit = situation(runner.def, runner.getSnapshot());
    expect(situationLine(sit)).toBe('STRATEGIC › CEO -> pending: STRATEGIC › CFO');
    expect(sit.status).toMatch(/^waiting for you: approval gate/);
  });
});

describe('!memory', () => {
  it('says what there is when memory holds nothing yet', () => {
    expect(memoryLines(() => ({ pinned: [], summaries: [] }))).toEqual(['pinned decisions (0):', '  none yet', 'summaries (0):', '  none yet (older turns are compressed as the session grows)']);
  });
});

describe('!sessions', () => {
  it('lists the store as it is when asked (not the previous refresh)', async () => {
    const { MemoryStore } = await import('../../src/store/memory-store.js');
    const store = new MemoryStore();
    const { runner } = await studioRunner(new ScriptedModel([]), { store });
    const host = { session: runner, usage: () => NO_USAGE };
    const first = executeLine('!sessions', host);
    expect(first.kind).toBe('later');
    const lines = first.kind === 'later' ? await first.lines : [];
    expect(lines[0]).toMatch(/^ID\s+STARTED/);
    expect(lines.filter((l) => l.startsWith('s-test'.slice(0, 8)))).toHaveLength(1);
    const other = await studioRunner(new ScriptedModel([]), { store, id: 'another' });
    const second = executeLine('!sessions', host);
    const again = second.kind === 'later' ? await second.lines : [];
    expect(again.some((l) => l.startsWith('another'))).toBe(true);
    await other.runner.stop();
    await runner.stop();
  });
});

describe('!history', () => {
  it('reads the whole log from the store, though the session keeps only a window of it in RAM', async () => {
    const { MemoryStore } = await import('../../src/store/memory-store.js');
    const { DemoModel } = await import('../../src/llm/demo-model.js');
    const { runner } = await studioRunner(new DemoModel(), { store: new MemoryStore(), recentEvents: 20 });
    const host = { session: runner, usage: () => NO_USAGE };
    executeLine('A lighthouse keeper game', host);
    await runner.settled();
    expect(runner.getSnapshot().turn).toBeGreaterThanOrEqual(10);
    expect(runner.recent().length).toBeLessThanOrEqual(40);
    expect(runner.recent()[0]!.seq).toBeGreaterThan(1);
    const history = executeLine('!history', host);
    const lines = history.kind === 'later' ? await history.lines : [];
    expect(lines[0]).toBe('turn 0: USER_INTERACTION › You -> CREATIVE › Creative Partner [system] brief received');
    const turns = lines.filter((l) => l.startsWith('turn ')).length;
    expect(turns).toBeGreaterThanOrEqual(runner.getSnapshot().turn);
    await runner.stop();
  });
});
