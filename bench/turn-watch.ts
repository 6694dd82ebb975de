import type { TroupeEvent } from '../src/engine/event-map.js';

/**
 * Watches a session's events for the warming benches: each turn's time to its first text and to its whole
 * answer (from its request going out), the first attempts counted, and how often the prediction made while
 * the turn before ran named the persona who then spoke, first or within the top three.
 */
export function turnWatch(now: () => number = () => performance.now()) {
  // When each turn's request went out, and whether its first text has come.
  const started = new Map<string, { at: number; answered: boolean }>();
  const ttft: number[] = [];
  const turnMs: number[] = [];
  const hits = { calls: 0, predicted: 0, top1: 0, top3: 0 };
  let prediction: string[] | null = null;
  const on = (e: TroupeEvent): void => {
    const at = now();
    if (e.type === 'agent_started') {
      started.set(e.turn_id, { at, answered: false });
      if (e.attempt !== 1) return;
      hits.calls += 1;
      if (prediction) {
        hits.predicted += 1;
        if (prediction[0] === e.persona) hits.top1 += 1;
        if (prediction.includes(e.persona)) hits.top3 += 1;
      }
      prediction = null;
    } else if (e.type === 'agent_delta' && e.text) {
      const turn = started.get(e.turn_id);
      if (turn && !turn.answered) {
        turn.answered = true;
        ttft.push(at - turn.at);
      }
    } else if (e.type === 'agent_message') {
      const turn = started.get(e.turn_id);
      if (turn) turnMs.push(at - turn.at);
      started.delete(e.turn_id);
    } else if (e.type === 'prediction') prediction = e.predictions.map((p) => p.persona);
    else if (e.type === 'user_input') prediction = null;
  };
  return { on, ttft, turnMs, hits };
}
