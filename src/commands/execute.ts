import { event } from '../engine/event-map.js';
import type { Runner } from '../runtime/runner.js';
import { inspect } from './inspect.js';
import type { MemorySource } from './memory-source.js';
import { parseLine, type ParsedLine } from './parse.js';
import type { UsageTotals } from './usage-meter.js';

/** What a line needs to act on: the runner, plus optional usage and memory readers. */
export interface LineHost {
  runner: Runner;
  usage: () => UsageTotals;
  memory?: MemorySource | undefined;
  sessions?: (() => string[]) | undefined;
}

/** What the caller shows after a line: nothing (the bus tells the story), some output, or leave. */
export type LineOutcome =
  | { kind: 'none' }
  | { kind: 'output'; title: string; lines: string[]; tone: 'info' | 'error' }
  | { kind: 'quit' };

/** Applies one parsed line: starts the session, steers the engine, or answers an inspection. */
export function applyParsed(parsed: ParsedLine, host: LineHost): LineOutcome {
  const { runner } = host;
  switch (parsed.kind) {
    case 'empty':
      return { kind: 'none' };
    case 'text':
      if (runner.session.status === 'idle') runner.start(parsed.text);
      else runner.dispatch({ type: 'user_message', text: parsed.text });
      return { kind: 'none' };
    case 'engine':
      runner.publish(event('command', { name: parsed.name, args: parsed.args }));
      runner.dispatch(parsed.input);
      return { kind: 'none' };
    case 'quit':
      // Leaving keeps the session resumable: a turn in flight is aborted unapplied and re-run on resume.
      runner.publish(event('command', { name: 'quit', args: [] }));
      runner.abortAll();
      if (runner.session.status !== 'ended') runner.publish(event('session_ended', { reason: 'user_left', detail: 'the session is saved; continue it with troupe resume' }));
      return { kind: 'quit' };
    case 'workflow':
      return { kind: 'output', title: 'workflow', lines: [`workflows are not available yet (asked for "${parsed.name}")`], tone: 'error' };
    case 'error':
      return { kind: 'output', title: 'command', lines: [parsed.message], tone: 'error' };
    case 'inspect': {
      const shown = inspect(parsed.name, { def: runner.def, session: runner.session, usage: host.usage(), memory: host.memory, sessions: host.sessions });
      return { kind: 'output', ...shown, tone: 'info' };
    }
  }
}

/** Parses and applies one input line. */
export function executeLine(line: string, host: LineHost): LineOutcome {
  return applyParsed(parseLine(line, host.runner.def), host);
}
