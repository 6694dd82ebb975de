import type { Completion } from '../commands/complete.js';

/** The editor's state: the line being typed, past lines, and where ↑/↓ is in them. */
export interface EditorState {
  buffer: string;
  history: string[];
  /** Index into history while browsing with ↑/↓; null while editing a fresh line. */
  browsing: number | null;
  /** The fresh line saved while browsing history. */
  draft: string;
  candidates: string[];
  /** Inside a bracketed paste: what arrives goes into the buffer as it is, line breaks included, until the paste ends. */
  pasting?: boolean;
}

/** The keys the editor cares about (a subset of Ink's `Key`). */
export interface EditorKey {
  upArrow?: boolean;
  downArrow?: boolean;
  return?: boolean;
  escape?: boolean;
  tab?: boolean;
  backspace?: boolean;
  delete?: boolean;
  ctrl?: boolean;
  meta?: boolean;
}

/** What one keypress or chunk did: the new state, lines submitted in order, and whether the user pressed Ctrl+C. */
export interface EditResult {
  state: EditorState;
  submitted: string[];
  interrupt: boolean;
}

/** An empty editor. */
export const EMPTY_EDITOR: EditorState = { buffer: '', history: [], browsing: null, draft: '', candidates: [] };

const HISTORY_MAX = 200;
const PASTE_START = '[200~';
const PASTE_END = '[201~';

/** The terminal sequences that turn bracketed paste on and off. */
export const BRACKETED_PASTE = { on: '\u001b[?2004h', off: '\u001b[?2004l' } as const;

function submit(s: EditorState, out: string[]): EditorState {
  const line = s.buffer;
  out.push(line);
  const history = line.trim() !== '' && s.history[s.history.length - 1] !== line ? [...s.history, line].slice(-HISTORY_MAX) : s.history;
  return { buffer: '', history, browsing: null, draft: '', candidates: [], pasting: false };
}

/**
 * Applies one input chunk to the editor (pure). A chunk may hold many characters and line breaks
 * (pasted or scripted text arrives as one chunk with `return` false), so CR, LF and CRLF all submit.
 */
export function edit(state: EditorState, input: string, key: EditorKey, complete?: (line: string) => Completion): EditResult {
  const submitted: string[] = [];
  let s = state;
  // A terminal in bracketed-paste mode wraps a paste in ESC[200~ ... ESC[201~ (Ink hands the markers over
  // without their ESC): the pasted lines become one message, sent when the user presses Enter.
  if (input === PASTE_START) return { state: { ...s, pasting: true, candidates: [] }, submitted, interrupt: false };
  if (input === PASTE_END) return { state: { ...s, pasting: false }, submitted, interrupt: false };
  if (s.pasting) return { state: { ...s, buffer: s.buffer + input.replace(/\r\n?/g, '\n') }, submitted, interrupt: false };
  if (key.ctrl && input === 'c') return { state: s, submitted, interrupt: true };
  if (key.ctrl && input === 'u') return { state: { ...s, buffer: '', candidates: [] }, submitted, interrupt: false };
  if (key.upArrow || key.downArrow) {
    if (s.history.length === 0) return { state: s, submitted, interrupt: false };
    const at = s.browsing ?? s.history.length;
    const next = key.upArrow ? Math.max(0, at - 1) : at + 1;
    if (next >= s.history.length) return { state: { ...s, buffer: s.browsing === null ? s.buffer : s.draft, browsing: null }, submitted, interrupt: false };
    const draft = s.browsing === null ? s.buffer : s.draft;
    return { state: { ...s, buffer: s.history[next]!, browsing: next, draft, candidates: [] }, submitted, interrupt: false };
  }
  if (key.tab) {
    if (!complete) return { state: s, submitted, interrupt: false };
    const c = complete(s.buffer);
    return { state: { ...s, buffer: c.line, candidates: c.candidates.length > 1 ? c.candidates : [] }, submitted, interrupt: false };
  }
  if (key.escape && input === '') return { state: { ...s, buffer: '', browsing: null, candidates: [] }, submitted, interrupt: false };
  if (key.backspace || key.delete) return { state: { ...s, buffer: s.buffer.slice(0, -1), candidates: [] }, submitted, interrupt: false };
  if (key.return && !/[\r\n]/.test(input)) {
    s = { ...s, buffer: s.buffer + input };
    return { state: submit(s, submitted), submitted, interrupt: false };
  }
  if (key.ctrl || key.meta) return { state: s, submitted, interrupt: false };
  let buffer = s.buffer;
  for (let i = 0; i < input.length; i += 1) {
    const ch = input[i]!;
    if (ch === '\r' || ch === '\n') {
      if (ch === '\n' && input[i - 1] === '\r') continue;
      s = submit({ ...s, buffer }, submitted);
      buffer = '';
    } else if (ch === '\x7f' || ch === '\b') {
      buffer = buffer.slice(0, -1);
    } else if (ch >= ' ' || ch === '\t') {
      buffer += ch === '\t' ? ' ' : ch;
    }
  }
  return { state: { ...s, buffer, browsing: submitted.length ? null : s.browsing, candidates: [] }, submitted, interrupt: false };
}
