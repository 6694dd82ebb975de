// Escape sequences a terminal acts on: OSC (window title, clipboard writes, hyperlinks) and the string
// controls DCS, SOS, PM, APC up to their terminator; CSI (cursor moves, erasing, hidden text); the
// other two- and three-byte ESC sequences; and their 8-bit C1 forms.
const SEQUENCES = new RegExp(
  [
    '\\x1b\\][^\\x07\\x1b\\x9c]*(?:\\x07|\\x1b\\\\|\\x9c)',
    '\\x1b[PX^_][^\\x1b\\x9c]*(?:\\x1b\\\\|\\x9c)',
    '\\x1b\\[[0-?]*[ -/]*[@-~]',
    '\\x1b[ -/]*[0-~]',
    '\\x9d[^\\x07\\x1b\\x9c]*(?:\\x07|\\x1b\\\\|\\x9c)',
    '[\\x90\\x98\\x9e\\x9f][^\\x1b\\x9c]*(?:\\x1b\\\\|\\x9c)',
    '\\x9b[0-?]*[ -/]*[@-~]',
  ].join('|'),
  'g',
);

// What is left of the controls (a lone ESC, CR, backspace, BEL, DEL, C1) and the bidirectional overrides
// that reorder what is shown: made visible instead of acted on.
const CONTROLS = /[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/g;

function visible(ch: string): string {
  const code = ch.charCodeAt(0);
  if (code < 0x20) return String.fromCharCode(0x2400 + code);
  if (code === 0x7f) return '\u2421';
  return `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * Text that is safe to print on a terminal: escape sequences (OSC 52 clipboard writes, OSC 0 titles,
 * CSI cursor moves and hidden text, and their 8-bit forms) removed, other control characters (CR,
 * backspace, BEL, a lone ESC, C1, bidi overrides) shown as visible symbols; newlines and tabs kept.
 * For every path from model, user or file text to a terminal; the stored session keeps the raw text.
 */
export function terminalSafe(text: string): string {
  return text.replace(SEQUENCES, '').replace(CONTROLS, visible);
}

/** terminalSafe text kept on one line: a newline (from a quoted file name, id or line) shown as ␤, for one-line messages. */
export function oneLineSafe(text: string): string {
  return terminalSafe(text).replace(/\n/g, '\u2424');
}

const JSON_UNSAFE = /[\x7f-\x9f\u202a-\u202e\u2066-\u2069\u2028\u2029]/g;
const HAS_JSON_UNSAFE = new RegExp(JSON_UNSAFE.source);

/**
 * A JSON text with the characters JSON.stringify leaves raw but a terminal may act on (DEL, C1, bidi
 * overrides, line separators) written as \u escapes: the same value, safe to print. Most texts have none:
 * they are searched first (a global replace that finds nothing still costs a third more, and allocates),
 * since every SSE frame's JSON and items come through here.
 */
export function terminalSafeJson(json: string): string {
  if (!HAS_JSON_UNSAFE.test(json)) return json;
  return json.replace(JSON_UNSAFE, (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
