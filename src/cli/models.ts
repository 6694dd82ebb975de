import type { TroupeEvent } from '../engine/event-map.js';
import type { ChatModel } from '../llm/chat-model.js';
import { DemoModel } from '../llm/demo-model.js';
import { demoProgress } from '../session/demo-progress.js';
import { modelFromEnv } from '../llm/from-env.js';
import { PacedModel } from '../llm/paced-model.js';

/** The demo answers instantly; in front of a person it is paced so they can watch and interject. */
export function paced(model: ChatModel, env: Record<string, string | undefined>): ChatModel {
  const pace = Number(env.TROUPE_DEMO_PACE_MS ?? 40);
  return model.offline && model.free && pace > 0 ? new PacedModel(model, pace) : model;
}

/** The model to continue a stored session with: from the environment; the demo continues its script where it stopped. */
export async function resumeModel(env: Record<string, string | undefined>, options: { demo?: boolean }, events: () => Promise<TroupeEvent[]>): Promise<ChatModel> {
  const model = modelFromEnv(env, options);
  return model instanceof DemoModel ? new DemoModel(demoProgress(await events())) : model;
}
