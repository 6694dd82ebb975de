import type { TroupeEvent } from '../../engine/event-map.js';
import type { ChatModel, ChatRequest, ChatResponse } from '../../llm/chat-model.js';
import { DemoModel } from '../../llm/demo-model.js';
import { storyBeat } from '../../llm/demo-story.js';

/**
 * How far a session's demo story got, followed from its events as they are published (demoProgressFrom,
 * one completed turn at a time): a replay publishes the same events, so it always agrees with the journal.
 */
export class DemoProgress {
  private readonly started = new Map<string, { persona: string; inbox: string; attempt: number }>();
  private readonly said: Record<string, number>;

  constructor(saved: Record<string, number> | null) {
    this.said = { ...(saved ?? {}) };
  }

  /** Lines said so far per persona (kept with the session). */
  get spoken(): Record<string, number> {
    return { ...this.said };
  }

  /** Follows one event. */
  feed(e: TroupeEvent): void {
    if (e.type === 'agent_started') this.started.set(e.turn_id, { persona: e.persona, inbox: e.inbox, attempt: e.attempt });
    else if (e.type === 'agent_message') {
      const call = this.started.get(e.turn_id);
      this.started.delete(e.turn_id);
      if (call && storyBeat(this.said, { persona: call.persona, inbox: call.inbox, repair: call.attempt !== 1 }) !== null) this.said[call.persona] = (this.said[call.persona] ?? 0) + 1;
    }
  }
}

/** The demo model of one session on Restate: each call is answered by a demo at the session's place in the story. */
export class DemoSessionModel implements ChatModel {
  readonly label: string;
  readonly offline = true;
  readonly free = true;

  constructor(
    private readonly progress: DemoProgress,
    label = new DemoModel().label,
  ) {
    this.label = label;
  }

  generate(request: ChatRequest): Promise<ChatResponse> {
    return new DemoModel(this.progress.spoken).generate(request);
  }
}
