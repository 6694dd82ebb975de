import { mkdtempSync, readFileSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatModel } from '../../src/llm/chat-model.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import { OpenAIChatModel } from '../../src/llm/openai-model.js';
import { openSession } from '../../src/session/open-session.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import type { WriteAt } from '../../src/store/journal-file.js';
import type { JournalRecord } from '../../src/store/session-file.js';
import { FakeOpenAIServer, streamChunks } from '../helpers/fake-openai-server.js';
import { REPO_ROOT, studio } from '../helpers/team.js';

let dirs: string[] = [];
let server: FakeOpenAIServer | null = null;
afterEach(async () => {
  await server?.stop();
  server = null;
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  dirs = [];
});
const dataDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'troupe-group-'));
  dirs.push(d);
  return d;
};
const ENV = { TROUPE_MODEL: 'test-model' };
const journalText = (dir: string, id: string) => readFileSync(join(dir, 'sessions', `${id}.jsonl`), 'utf8');
const journalOf = (dir: string, id: string): JournalRecord[] =>
  journalText(dir, id)
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as JournalRecord);

/** The real write, counted. */
function countingWrites(): WriteAt & { calls: number } {
  const write = ((fd, buffer, offset, length, position) => {
    write.calls += 1;
    return writeSync(fd, buffer, offset, length, position);
  }) as WriteAt & { calls: number };
  write.calls = 0;
  return write;
}

describe('group commit', () => {
  it('a turn reaches the journal in one write: the usage, the answer step and the next call start together, before that call', async () => {
    const dir = dataDir();
    const write = countingWrites();
    const atCall: number[] = [];
    const demo = new DemoModel();
    const model: ChatModel = {
      label: 'counting demo',
      offline: true,
      free: true,
      generate: (request) => {
        if (request.meta.purpose === 'persona') atCall.push(write.calls);
        return demo.generate(request);
      },
    };
    const session = await openSession({ team: studio(), teamDir: REPO_ROOT, model, store: new LowdbStore(dir, { writeAt: write }), id: 'one', env: ENV, memory: false });
    session.start('A lighthouse keeper game');
    await session.settled();
    expect(atCall.length).toBeGreaterThanOrEqual(10);
    const perTurn = atCall.slice(1).map((n, i) => n - atCall[i]!);
    expect(perTurn).toEqual(perTurn.map(() => 1));
    // Each write held the whole turn: the model's usage, the step of its answer, the next call's start.
    const records = journalOf(dir, 'one');
    const completed = records.findIndex((r) => r.input?.type === 'agent_completed');
    expect(records[completed - 1]!.events.map((e) => e.type)).toContain('usage');
    expect(records[completed + 1]!.events.map((e) => e.type)).toEqual(['agent_started']);
    await session.stop();
  });

  it('a group whose write fails half way stops the session before its model call reaches the server; the file is cut back to its last whole line, names the file, and resumes', async () => {
    const dir = dataDir();
    const handoff = { transition: 'HANDOFF_TO_AGENT', next_agent: 'game_designer' };
    server = await new FakeOpenAIServer(() => ({ stream: streamChunks('Concept: tides.', handoff) })).start();
    const model = new OpenAIChatModel({ baseURL: server.baseURL, apiKey: 'k', maxRetries: 0 });
    let writes = 0;
    let failedAt = -1;
    // The second write (the first turn's answer with the next call's start) gets half its bytes out, then the disk is full.
    const write: WriteAt = (fd, buffer, offset, length, position) => {
      if (++writes === 2) {
        failedAt = position;
        writeSync(fd, buffer, offset, length >> 1, position);
        throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' });
      }
      return writeSync(fd, buffer, offset, length, position);
    };
    const session = await openSession({ team: studio(), teamDir: REPO_ROOT, model, store: new LowdbStore(dir, { writeAt: write }), id: 'torn', env: ENV, memory: false });
    session.start('A lighthouse keeper game');
    await session.settled();
    expect(writes).toBe(2);
    expect(session.fault?.message).toMatch(/^session torn stopped before its next model call: cannot save session torn to .*torn\.jsonl: no space left/);
    // The first call went out; the second never left the process.
    expect(server.requests).toHaveLength(1);
    await session.stop().catch(() => undefined);
    // Cut back whole: what was saved before the group, every line complete.
    const text = journalText(dir, 'torn');
    expect(Buffer.byteLength(text)).toBe(failedAt);
    expect(text.endsWith('\n')).toBe(true);
    const saved = journalOf(dir, 'torn');
    expect(saved.some((r) => r.input?.type === 'agent_completed')).toBe(false);
    // It reopens, folds and resumes: the first call is made again, and the session goes on.
    const resumed = await openSession({ store: new LowdbStore(dir), resume: 'torn', team: studio(), model: new DemoModel({ creative_partner: 1 }), env: ENV, memory: false });
    resumed.resume();
    await resumed.settled();
    expect(resumed.fault).toBeNull();
    expect(journalOf(dir, 'torn').filter((r) => r.input?.type === 'agent_completed').length).toBeGreaterThan(0);
    await resumed.stop();
  });

  it('a message while a call is in flight is written by the time send returns, with the start of the call it makes: nothing stays staged for the event loop', async () => {
    const dir = dataDir();
    const demo = new DemoModel();
    let release: () => void = () => undefined;
    const held = new Promise<void>((resolve) => (release = resolve));
    let calls = 0;
    const model: ChatModel = {
      label: 'held demo',
      offline: true,
      free: true,
      generate: async (request) => {
        if (request.meta.purpose === 'persona' && ++calls === 1) await held;
        return demo.generate(request);
      },
    };
    const session = await openSession({ team: studio(), teamDir: REPO_ROOT, model, store: new LowdbStore(dir), id: 'quiet', env: ENV, memory: false });
    session.start('A lighthouse keeper game');
    await new Promise((resolve) => setImmediate(resolve));
    expect(session.getSnapshot().inFlight).toBeTruthy();
    const before = journalOf(dir, 'quiet').length;
    session.send({ type: 'user_message', text: 'make it foggy' });
    // Read synchronously, before any callback of the event loop could write it.
    const after = journalOf(dir, 'quiet');
    // The message's step (the call cut off) and the new call's start, in the one write made before that call.
    expect(after.slice(before).map((r) => [r.input?.type ?? null, r.events.map((e) => e.type)])).toEqual([
      ['user_message', ['agent_aborted', 'user_input']],
      [null, ['agent_started']],
    ]);
    release();
    await session.settled();
    await session.stop();
  });
});
