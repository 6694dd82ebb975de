import { event, type EngineEvent } from '../engine/event-map.js';

/** A command waiting for the user's word. */
export interface PendingCommand {
  id: string;
  command: string;
  cwd: string;
  persona: string;
  branch?: string;
}

/**
 * Commands agents want to run under the `ask` policy: each is published (`command_approval` asked)
 * and waits, oldest first, until the user answers `!allow` or `!deny`. A runtime fact, not engine
 * state: a session that is stopped or resumed refuses what was still waiting (the turn runs again).
 */
export class CommandApprovals {
  private readonly waiting: { pending: PendingCommand; resolve: (allowed: boolean) => void }[] = [];
  private seq = 0;

  constructor(private readonly publish: (e: EngineEvent) => void) {}

  /** Commands waiting for an answer, oldest first. */
  pending(): PendingCommand[] {
    return this.waiting.map((w) => w.pending);
  }

  /** Asks the user about a command; resolves true when allowed. An abort refuses it. */
  request(ask: Omit<PendingCommand, 'id'>, signal?: AbortSignal): Promise<boolean> {
    const pending: PendingCommand = { id: `c${++this.seq}`, ...ask };
    return new Promise((resolve) => {
      const entry = { pending, resolve };
      this.waiting.push(entry);
      this.publish(event('command_approval', { ...pending, phase: 'asked' }));
      signal?.addEventListener('abort', () => this.settle(entry, false), { once: true });
    });
  }

  /** The user's answer to the oldest waiting command; null when none waits. */
  answer(allowed: boolean): PendingCommand | null {
    const oldest = this.waiting[0];
    if (!oldest) return null;
    this.settle(oldest, allowed);
    return oldest.pending;
  }

  /** Refuses everything still waiting (the session stops). */
  refuseAll(): void {
    for (const entry of [...this.waiting]) this.settle(entry, false);
  }

  private settle(entry: (typeof this.waiting)[number], allowed: boolean): void {
    const at = this.waiting.indexOf(entry);
    if (at === -1) return;
    this.waiting.splice(at, 1);
    this.publish(event('command_approval', { ...entry.pending, phase: allowed ? 'allowed' : 'denied' }));
    entry.resolve(allowed);
  }
}
