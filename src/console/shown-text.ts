import { terminalSafe } from '../report/terminal-safe.js';

/**
 * Parses the server's JSON with every string as the terminal UI shows it (terminalSafe): escape sequences gone, control characters and
 * bidi overrides made visible, so a brief, a model's words or a file cannot reorder or hide what the page shows. Throws on bad JSON.
 */
export function parseShown(text: string): unknown {
  return JSON.parse(text, (_key, value: unknown) => (typeof value === 'string' ? terminalSafe(value) : value));
}
