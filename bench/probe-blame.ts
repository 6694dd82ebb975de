/** A stretch of time in which the server's event loop did not turn: when it began (monotonic ms), how long, the CPU the server used in it. */
export interface LoopGap {
  at: number;
  wall: number;
  cpu: number;
}

/** Where the slow probes of a phase lost their time. */
export interface Blame {
  slow: number;
  /** A gap of the server's loop overlapped the probe and the server was on the CPU for most of it: the server's own work. */
  serverBusy: number;
  /** A gap overlapped it but the server was mostly off the CPU: the machine ran other processes. */
  serverWaiting: number;
  /** No gap of the server's loop overlapped it: the time was lost in the probe's process or the network stack. */
  elsewhere: number;
}

/**
 * Sorts the probes that took more than `slowMs` by where their time went, from the server's loop gaps
 * (probes are `[sent at, took]` on the same monotonic clock as the gaps).
 */
export function blameSlowProbes(probes: readonly (readonly [number, number])[], gaps: readonly LoopGap[], slowMs: number): Blame {
  const blame: Blame = { slow: 0, serverBusy: 0, serverWaiting: 0, elsewhere: 0 };
  for (const [at, took] of probes) {
    if (took <= slowMs) continue;
    blame.slow += 1;
    const over = gaps.filter((g) => g.at < at + took && g.at + g.wall > at);
    const wall = over.reduce((n, g) => n + g.wall, 0);
    const cpu = over.reduce((n, g) => n + g.cpu, 0);
    if (over.length === 0) blame.elsewhere += 1;
    else if (cpu >= wall / 2) blame.serverBusy += 1;
    else blame.serverWaiting += 1;
  }
  return blame;
}

/** The blame as one line. */
export function blameLine(b: Blame, slowMs: number): string {
  if (b.slow === 0) return `no probe over ${slowMs} ms`;
  return `${b.slow} probes over ${slowMs} ms: ${b.serverBusy} while the server was busy, ${b.serverWaiting} while it was off the CPU (other processes ran), ${b.elsewhere} with the server's loop turning (lost in the probe's process or the network)`;
}
