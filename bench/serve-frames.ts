// What framing a session's events for SSE costs, alone: the events of one bench session (the serve bench's
// six turns, each streaming 46 words), framed as a late reader gets them (sseFrames over every stored event,
// each with its display step, as a feed that followed the session unread holds them) and as a live reader gets
// the streamed words (deltasFrame over a turn's 46 deltas). CPU per event, median of rounds, in this process.
// Run: node --import tsx bench/serve-frames.ts
import type { TroupeEvent } from '../src/engine/event-map.js';
import { processRedactor } from '../src/llm/redact.js';
import { PACKAGE_ROOT } from '../src/package-root.js';
import { DISPLAY_START, type DisplayItem, type DisplayState, displayNames, displayStep } from '../src/report/display-items.js';
import { deltasFrame, sseFrames } from '../src/serve/sse-frame.js';
import { openSession } from '../src/session/open-session.js';
import { openTeam } from '../src/team/open-team.js';
import { DELTAS, LatencyModel } from './serve.bench.js';
import { median } from './stats.js';

// The serve bench's model with no latency: streams its words, hands on, asks the user after its turns.
const model = new LatencyModel(0);

const team = openTeam(PACKAGE_ROOT, {}, {});
const session = await openSession({ team, teamDir: PACKAGE_ROOT, env: {}, model, brief: 'bench session 0' });
const events: TroupeEvent[] = [];
session.subscribe((e) => events.push(e));
session.start('bench session 0');
await session.settled();
await session.stop();

const names = displayNames(session.def);
const redactor = processRedactor();
const kept: { e: TroupeEvent; before: DisplayState; stepped: { state: DisplayState; items: DisplayItem[] } }[] = [];
let state = DISPLAY_START;
for (const e of events) {
  const stepped = displayStep(state, e, names);
  if (e.type !== 'agent_delta') kept.push({ e, before: state, stepped });
  state = stepped.state;
}
const deltas = events.filter((e) => e.type === 'agent_delta').slice(0, DELTAS);

/** CPU microseconds per event of `run` over `count` events, median of rounds. */
function perEvent(run: () => unknown, count: number): number {
  for (let i = 0; i < 300; i++) run();
  const rounds: number[] = [];
  for (let r = 0; r < 7; r++) {
    const cpu = process.cpuUsage();
    for (let i = 0; i < 300; i++) run();
    const used = process.cpuUsage(cpu);
    rounds.push((used.user + used.system) / 300 / count);
  }
  return median(rounds);
}

const stored = perEvent(() => sseFrames(kept, names, redactor), kept.length);
const streamed = perEvent(() => deltasFrame(deltas, state, names, redactor), deltas.length);
const json = perEvent(() => kept.map((k) => JSON.stringify(k.e)), kept.length);
process.stdout.write(
  `SSE framing, one bench session (${kept.length} stored events, ${deltas.length} streamed words a turn): stored events for a late reader (sseFrames) ${stored.toFixed(2)} µs/event (their JSON.stringify alone ${json.toFixed(2)}), a turn's streamed words (deltasFrame) ${streamed.toFixed(2)} µs/word\n`,
);
