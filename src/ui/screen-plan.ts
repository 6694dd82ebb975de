// How the live area (everything below the printed transcript, redrawn on every frame) fits the terminal.
// Ink redraws it by erasing as many rows as it drew last time: a frame as tall as the terminal makes Ink
// clear the whole screen and print the transcript again, and a taller one pushes its top rows into the
// scrollback, where no erase reaches them (the stale copies of the header). So the frame is planned to be
// at most one row shorter than the terminal, from the rows each part takes at this width.

/** The most rows a streaming turn shows, however tall the terminal. */
export const MAX_LIVE_LINES = 12;
/** The most rows the last arbitration takes. */
export const MAX_ARBITRATION_ROWS = 2;
/** The most rows the typed line takes (a longer one shows its end). */
export const MAX_INPUT_ROWS = 3;

/** The rows each part of the live area would take at this width. */
export interface ScreenParts {
  rows: number;
  /** The header's rows (the team line, and the demo notice when offline). */
  header: number;
  /** The state tree's rows with its borders (0: not shown at this size). */
  tree: number;
  /** What streams: one turn (a heading and its words), or the branches of a fan-out (a row each), or nothing. */
  live: { kind: 'turn' } | { kind: 'branches'; count: number } | { kind: 'none' };
  /** Rows the last arbitration wraps to (0: none). */
  arbitration: number;
  /** Whether completion candidates are listed. */
  candidates: boolean;
  /** Rows the typed line wraps to. */
  input: number;
}

/** What is shown, and how many rows each part may take. */
export interface ScreenPlan {
  margin: boolean;
  /** Whether the streaming turn's heading row fits (it always does from 7 rows up). */
  liveHead: boolean;
  demoNotice: boolean;
  tree: boolean;
  /** Rows of the streaming turn's words (its heading is one more). */
  liveLines: number;
  /** Branch rows shown (the last one says how many more there are, when not all fit). */
  branchRows: number;
  arbitrationRows: number;
  inputRows: number;
  candidates: boolean;
}

/** Plans the live area so the whole frame is at most `rows - 1` rows (pure). */
export function planScreen(p: ScreenParts): ScreenPlan {
  let left = Math.max(0, p.rows - 1);
  const take = (wanted: number): number => {
    const n = Math.max(0, Math.min(wanted, left));
    left -= n;
    return n;
  };
  // Always: the team line, the state line, the footer, the hint and one row of the typed line.
  take(5);
  const plan: ScreenPlan = { margin: false, liveHead: false, demoNotice: false, tree: false, liveLines: 0, branchRows: 0, arbitrationRows: 0, inputRows: 1, candidates: false };
  plan.liveHead = p.live.kind === 'turn' && take(1) === 1;
  if (p.live.kind === 'branches') plan.branchRows = take(Math.min(p.live.count, 3));
  plan.margin = take(1) === 1;
  plan.demoNotice = p.header > 1 && take(1) === 1;
  plan.inputRows += take(Math.min(p.input, MAX_INPUT_ROWS) - 1);
  plan.candidates = p.candidates && take(1) === 1;
  if (plan.liveHead) plan.liveLines = take(3);
  if (p.tree > 0 && left >= p.tree) plan.tree = take(p.tree) > 0;
  if (p.live.kind === 'branches') plan.branchRows += take(p.live.count - plan.branchRows);
  if (plan.liveHead) plan.liveLines += take(3);
  plan.arbitrationRows = take(Math.min(p.arbitration, MAX_ARBITRATION_ROWS));
  if (plan.liveHead) plan.liveLines += take(MAX_LIVE_LINES - plan.liveLines);
  return plan;
}

/** The rows a planned frame takes (what Ink will draw; at most `rows - 1`). */
export function plannedRows(p: ScreenParts, plan: ScreenPlan): number {
  return (
    (plan.margin ? 1 : 0) +
    1 +
    (plan.demoNotice ? 1 : 0) +
    1 +
    (plan.tree ? p.tree : 0) +
    (plan.liveHead ? 1 : 0) +
    plan.liveLines +
    plan.branchRows +
    plan.arbitrationRows +
    1 +
    (plan.candidates ? 1 : 0) +
    1 +
    plan.inputRows
  );
}
