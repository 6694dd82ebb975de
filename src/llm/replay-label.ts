// How a replayed session's model label names its recording: a module of its own, so a session that only
// checks a label (every reopened one) does not load the replay model and the recording schemas.

const REPLAY = 'replay of ';
const RECORDED = ' (recorded on ';

/** The label of a replay: it names the recording and the model recorded (a replay calls no model, so it must not pass for one). */
export function replayLabel(file: string, recorded: string): string {
  return `${REPLAY}${file}${RECORDED}${recorded})`;
}

/** The recording a model label says a session replayed, or null when it ran on a model. */
export function replayedFrom(label: string): string | null {
  if (!label.startsWith(REPLAY)) return null;
  const end = label.indexOf(RECORDED);
  return end > REPLAY.length ? label.slice(REPLAY.length, end) : null;
}
