import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FakeOpenAIServer, streamChunks } from '../helpers/fake-openai-server.js';
import { fixedClock, studio, studioRunner } from '../helpers/team.js';
import { OpenAIChatModel } from '../../src/llm/openai-model.js';
import { ToolFallbackModel } from '../../src/llm/tool-fallback.js';
import { RecordingModel } from '../../src/llm/recording.js';
import { ReplayModel, requestDifference } from '../../src/llm/replay-model.js';
import { ScriptedModel } from '../../src/llm/scripted-model.js';
import { UserError } from '../../src/llm/errors.js';
import type { ChatModel } from '../../src/llm/chat-model.js';
import type { TroupeSession } from '../../src/session/troupe-session.js';
import { UsageMeter } from '../../src/usage/usage-meter.js';
import { PriceTable } from '../../src/usage/price-table.js';
import type { TroupeEvent } from '../../src/engine/event-map.js';

const KEY = 'sk-live-SECRETSECRETSECRET0123456789';
let server: FakeOpenAIServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
});

/** A fixed clock as the recorder takes it (a Date). */
const dateClock = () => {
  const clock = fixedClock();
  return () => new Date(clock());
};

const dir = () => mkdtempSync(join(tmpdir(), 'troupe-rec-'));

async function runSession(model: ChatModel, brief = 'a lighthouse game'): Promise<{ events: TroupeEvent[]; runner: TroupeSession }> {
  const meter = new UsageMeter(new PriceTable({ 'test-model': { input: 1, output: 2 } }, 'test'));
  const { runner, events } = await studioRunner(model, { team: studio(), meter, id: 's' });
  runner.start(brief);
  await runner.settled();
  return { events, runner };
}

// A replay names itself as the session's model (`replay of <file> (recorded on <model>)`, it calls none); every other event is the same.
const strip = (events: TroupeEvent[]) =>
  events.map(({ at: _at, session_id: _id, seq: _seq, ...rest }) => (rest.type === 'session_started' ? { ...rest, model: rest.model.replace(/^replay of .* \(recorded on (.*)\)$/, '$1') } : rest));

async function recordSession(file: string) {
  server = await new FakeOpenAIServer([
    { stream: streamChunks('Concept: a keeper of light.', { transition: 'HANDOFF_TO_AGENT', next_agent: 'game_designer', key_decisions: ['Keeper fantasy'] }, { pieces: 3 }) },
    { stream: streamChunks('Loop draft.', '{"transition": "APPROVE', { pieces: 2 }) },
    { stream: streamChunks('', { transition: 'RESPOND_TO_USER' }, { usage: { prompt_tokens: 70, completion_tokens: 5 } }) },
  ]).start();
  const live = new ToolFallbackModel(new OpenAIChatModel({ baseURL: server.baseURL, apiKey: KEY, maxRetries: 0 }));
  return runSession(new RecordingModel(live, file, dateClock()));
}

describe('record and replay', () => {
  it('a replay gives the same events as the recorded session, offline', async () => {
    const file = join(dir(), 'session.jsonl');
    const recorded = await recordSession(file);
    await server!.stop();
    server = null;
    const replay = ReplayModel.fromFile(file);
    const replayed = await runSession(replay);
    expect(strip(replayed.events)).toEqual(strip(recorded.events));
    expect(replayed.events.some((e) => e.type === 'agent_delta')).toBe(true);
    expect(replayed.events.some((e) => e.type === 'directive_invalid')).toBe(true);
    expect(replayed.events.filter((e) => e.type === 'usage').length).toBe(3);
    expect(replay.divergence).toBeNull();
    expect(replay.remaining).toBe(0);
  });

  it('the recording holds every request and response as JSON lines, and never the API key', async () => {
    const file = join(dir(), 'session.jsonl');
    await recordSession(file);
    const text = readFileSync(file, 'utf8');
    expect(text).not.toContain('SECRET');
    expect(text.toLowerCase()).not.toContain('authorization');
    const lines = text
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l));
    expect(lines[0]).toMatchObject({ type: 'recording', version: 1 });
    expect(lines.slice(1).map((l) => [l.n, l.request.persona, l.response.finishReason])).toEqual([
      [1, 'creative_partner', 'tool_calls'],
      [2, 'game_designer', 'tool_calls'],
      [3, 'game_designer', 'tool_calls'],
    ]);
    expect(lines[1].request.tools).toEqual(['handoff_directive']);
    expect(lines[1].deltas.length).toBeGreaterThan(3);
  });

  it('redacts key-like strings that reach a request', async () => {
    const file = join(dir(), 'keys.jsonl');
    const model = new RecordingModel(new ScriptedModel([{ text: 'ok', directive: { transition: 'RESPOND_TO_USER' } }]), file);
    await runSession(model, `use my key ${KEY} please`);
    expect(readFileSync(file, 'utf8')).not.toContain('SECRET');
  });

  it('keeps a recording valid and replayable when the brief mentions bearer tokens and authorization', async () => {
    const file = join(dir(), 'bearer.jsonl');
    const brief = 'An API that takes a Bearer token. Payments need authorization: the CFO signs';
    await runSession(new RecordingModel(new ScriptedModel([{ text: 'ok', directive: { transition: 'RESPOND_TO_USER' } }]), file), brief);
    for (const line of readFileSync(file, 'utf8').trim().split('\n')) expect(() => JSON.parse(line)).not.toThrow();
    const replay = ReplayModel.fromFile(file);
    const { runner } = await runSession(replay, brief);
    expect(replay.divergence).toBeNull();
    expect(runner.getSnapshot().awaiting?.code).toBe('respond_to_user');
  });

  it('reports the first divergence in one line naming the call, persona and what differed', async () => {
    const file = join(dir(), 'session.jsonl');
    await recordSession(file);
    const replay = ReplayModel.fromFile(file);
    const { runner } = await runSession(replay, 'a lighthouse gamE');
    expect(replay.divergence).toBe('replay diverged at call 1 (persona creative_partner): messages[1] (user) differs at character 34: recorded "…ef: a lighthouse game", now "…ef: a lighthouse gamE"');
    expect(runner.getSnapshot().awaiting?.code).toBe('failure');
  });

  it('reports a call the recording does not hold', async () => {
    const file = join(dir(), 'short.jsonl');
    await runSession(
      new RecordingModel(new ScriptedModel([{ text: 'Concept.', directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'game_designer' } }, { error: new Error('stop here') }]), file),
    );
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    writeFileSync(file, `${lines.slice(0, 2).join('\n')}\n`);
    const replay = ReplayModel.fromFile(file);
    await runSession(replay);
    expect(replay.divergence).toBe('replay diverged at call 2 (persona game_designer): the recording holds only 1 call(s)');
  });

  it('replays a recorded error as the same failure', async () => {
    const file = join(dir(), 'err.jsonl');
    const recorded = await runSession(new RecordingModel(new ScriptedModel([{ error: new Error('server on fire') }]), file));
    const replayed = await runSession(ReplayModel.fromFile(file));
    expect(strip(replayed.events)).toEqual(strip(recorded.events));
    expect(replayed.runner.getSnapshot().awaiting?.reason).toMatch(/server on fire/);
  });

  it('a damaged or missing recording is a one-line UserError', () => {
    const file = join(dir(), 'bad.jsonl');
    writeFileSync(file, '{"type":"recording","version":1,"label":"x","created":"now"}\n{broken\n');
    expect(() => ReplayModel.fromFile(file)).toThrow(UserError);
    expect(() => ReplayModel.fromFile(file)).toThrow(/bad\.jsonl: line 2 is not valid JSON — the recording is damaged/);
    writeFileSync(file, '{"type":"call","n":1}\n');
    expect(() => ReplayModel.fromFile(file)).toThrow(/line 1 is not a recorded call/);
    expect(() => ReplayModel.fromFile(join(dir(), 'none.jsonl'))).toThrow(/^cannot read the recording .*none\.jsonl — check the --replay path$/);
  });

  it('requestDifference names the first field that differs', () => {
    const base = { model: 'm', messages: [{ role: 'user' as const, content: 'hello' }], tools: ['t'], jsonMode: false, purpose: 'persona', persona: 'ceo' };
    expect(requestDifference(base, base)).toBeNull();
    expect(requestDifference(base, { ...base, model: 'n' })).toBe('model differs: recorded "m", now "n"');
    expect(requestDifference(base, { ...base, tools: [] })).toBe('tools differ: recorded [t], now []');
    expect(requestDifference(base, { ...base, messages: [] })).toBe('message count differs: recorded 1, now 0');
  });
});
