// What a served session costs once (create, lock, journal, first checkpoint, its requests) against what each of
// its turns costs: the serve bench run at several turns per session (SERVE_SPLIT=1,12), a line fitted to the
// server's CPU per session over turns per session, for troupe and the floor measured in the same rounds.

/** One run's CPU per session and the turns each session made. */
export interface SplitPoint {
  turnsPerSession: number;
  cpuMsPerSession: number;
  systemMsPerSession: number;
}

/** The least-squares line `fixed + perTurn × turns` through the points (needs two turn counts or more). */
export function fitLine(points: readonly { x: number; y: number }[]): { fixed: number; perTurn: number } {
  const n = points.length;
  const mx = points.reduce((s, p) => s + p.x, 0) / n;
  const my = points.reduce((s, p) => s + p.y, 0) / n;
  const sxx = points.reduce((s, p) => s + (p.x - mx) ** 2, 0);
  const perTurn = sxx === 0 ? Number.NaN : points.reduce((s, p) => s + (p.x - mx) * (p.y - my), 0) / sxx;
  return { fixed: my - perTurn * mx, perTurn };
}

/** The split's lines: per session and per turn, CPU and its system part, troupe against the floor, and what the fixed part adds per turn at `turns`. */
export function splitLines(points: Record<'troupe' | 'floor', SplitPoint[]>, turns: number): string[] {
  const lineOf = (t: 'troupe' | 'floor', key: 'cpuMsPerSession' | 'systemMsPerSession') => fitLine(points[t].map((p) => ({ x: p.turnsPerSession, y: p[key] })));
  const line = (t: 'troupe' | 'floor') => {
    const cpu = lineOf(t, 'cpuMsPerSession');
    const system = lineOf(t, 'systemMsPerSession');
    return `      ${t.padEnd(6)} once per session ${cpu.fixed.toFixed(2)} ms (system ${system.fixed.toFixed(2)}), per turn ${cpu.perTurn.toFixed(3)} ms (system ${system.perTurn.toFixed(3)}); at ${turns} turns a session the once-per-session part is ${(cpu.fixed / turns).toFixed(3)} ms/turn`;
  };
  const t = lineOf('troupe', 'cpuMsPerSession');
  const f = lineOf('floor', 'cpuMsPerSession');
  return [
    `    CPU once per session vs per turn (a line through ${points.troupe.length} runs at ${[...new Set(points.troupe.map((p) => p.turnsPerSession.toFixed(1)))].join(', ')} turns a session):`,
    line('floor'),
    line('troupe'),
    `      troupe - floor: once per session +${(t.fixed - f.fixed).toFixed(2)} ms (+${((t.fixed - f.fixed) / turns).toFixed(3)} ms/turn at ${turns} turns), per turn +${(t.perTurn - f.perTurn).toFixed(3)} ms`,
  ];
}
