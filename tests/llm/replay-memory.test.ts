import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ChatModel, ChatRequest, ChatResponse } from '../../src/llm/chat-model.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import { RecordingModel } from '../../src/llm/recording.js';
import { ReplayModel } from '../../src/llm/replay-model.js';
import { fixedClock } from '../helpers/team.js';
import { transcriptOf } from '../../src/memory/transcript.js';

/** A fixed clock as the recorder takes it (a Date). */
const dateClock = () => {
  const clock = fixedClock();
  return () => new Date(clock());
};
import { LongSessionModel, memoryRunner } from '../memory/long-session.js';

const macrotask = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * A live model with real-world timing, made deterministic: a persona call answers after one macrotask,
 * a summary call only once `lag` more persona calls have started (a slow fast-tier server), so summaries
 * land in the middle of later persona turns, as they do against a real server.
 */
class LaggingSummaries implements ChatModel {
  readonly label = 'lagging summaries';
  private readonly personas: LongSessionModel;
  private readonly demo = new DemoModel();
  private started = 0;
  private readonly waiting: { until: number; resolve: () => void }[] = [];

  constructor(
    lastTurn: number,
    private readonly lag: number,
  ) {
    this.personas = new LongSessionModel({ lastTurn, decisions: { 3: ['Keep the island small'], 12: ['Three chapters'] } });
  }

  /** The session is waiting for the user: no more persona calls come, so every summary may answer. */
  flush(): void {
    for (const w of this.waiting.splice(0)) setImmediate(w.resolve);
  }

  async generate(request: ChatRequest): Promise<ChatResponse> {
    if (request.meta.purpose === 'summary') {
      const response = await this.demo.generate(request);
      await new Promise<void>((resolve) => this.waiting.push({ until: this.started + this.lag, resolve }));
      return response;
    }
    this.started += 1;
    for (const w of this.waiting.filter((x) => x.until <= this.started)) {
      this.waiting.splice(this.waiting.indexOf(w), 1);
      setImmediate(w.resolve);
    }
    await macrotask();
    return this.personas.generate(request);
  }
}

async function session(model: ChatModel, live?: LaggingSummaries) {
  const { runner, events, attached } = await memoryRunner(model);
  runner.start('A cozy lighthouse game');
  await runner.settled();
  live?.flush();
  await attached!.memory.idle();
  const turns = transcriptOf(events).map((t) => `${t.persona ?? t.kind}: ${t.text}`);
  return { runner, events, memory: attached!.memory.toJSON(), turns };
}

describe('--replay of a session that used memory (issue 10, item 13)', () => {
  for (const lag of [1, 2, 3]) {
    it(`reproduces the session to the same end when summaries land ${lag} persona call(s) late`, async () => {
      const file = join(mkdtempSync(join(tmpdir(), 'troupe-replay-mem-')), 'session.jsonl');
      const lagging = new LaggingSummaries(30, lag);
      const live = await session(new RecordingModel(lagging, file, dateClock()), lagging);
      expect(live.events.filter((e) => e.type === 'memory_compressed').length).toBeGreaterThan(3);
      const replay = ReplayModel.fromFile(file);
      const replayed = await session(replay);
      expect(replay.divergence).toBeNull();
      expect(replay.remaining).toBe(0);
      expect(replayed.turns).toEqual(live.turns);
      expect(replayed.memory).toEqual(live.memory);
    });
  }
});
