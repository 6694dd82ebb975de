import type { SessionState } from '../../src/engine/session.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import type { ChatModel, ChatRequest, ChatResponse } from '../../src/llm/chat-model.js';
import { createStoredSession } from '../../src/store/stored-session.js';
import type { Store } from '../../src/store/store.js';
import { fixedClock, REPO_ROOT, studio } from '../helpers/team.js';

/** The brief every store test runs. */
export const BRIEF = 'A lighthouse keeper game';

/** Wraps a model with a fixed delay per call (abortable), so a child process can be killed mid-call. */
export class SlowModel implements ChatModel {
  readonly label: string;
  constructor(private readonly inner: ChatModel, private readonly delayMs: number) {
    this.label = inner.label;
  }
  async generate(request: ChatRequest): Promise<ChatResponse> {
    await new Promise((r) => setTimeout(r, this.delayMs));
    return this.inner.generate(request);
  }
}

/** Runs the demo brief uninterrupted into a store; returns every snapshot the runner stepped through and the final one. */
export async function uninterrupted(store: Store, id = 'ref'): Promise<{ steps: SessionState[]; final: SessionState }> {
  const steps: SessionState[] = [];
  const stored = await createStoredSession({
    store, team: studio(), teamDir: REPO_ROOT, model: new DemoModel(), mode: 'fsm', sessionId: id, brief: BRIEF, clock: fixedClock(),
    onStep: (s) => steps.push(s),
  });
  stored.runner.start(BRIEF);
  await stored.runner.settled();
  await stored.close();
  return { steps, final: stored.runner.session };
}

/** A session state without its id, for comparing runs stored under different ids. */
export function comparable(s: SessionState): Omit<SessionState, 'id'> {
  const { id: _id, ...rest } = s;
  return rest;
}
