import { memo } from 'preact/compat';
import { useEffect, useRef } from 'preact/hooks';
import type { Entry, StreamingTurn } from './session-state.js';

/** One transcript entry, styled by its kind and tone; words as the server wrote them (text only, never HTML). */
function EntryView({ e }: { e: Entry }) {
  switch (e.kind) {
    case 'header':
      return (
        <div class="entry header">
          <div class="muted">{e.text}</div>
          <div class="turn">
            <span class="who">{e.label}:</span> {e.brief}
          </div>
        </div>
      );
    case 'user':
      return (
        <div class="entry you">
          <span class="who">You:</span> {e.text}
        </div>
      );
    case 'command':
      return (
        <div class="entry you command">
          <span class="who">You:</span> <code>{e.text}</code>
        </div>
      );
    case 'turn':
      return (
        <article class="entry turn" aria-label={`${e.who ?? ''}${e.branch ? ` [${e.branch}]` : ''}, turn ${e.turn}`}>
          <div class="who">
            {e.who}
            {e.branch ? <span class="branch"> [{e.branch}]</span> : null} <span class="where">{e.where}</span>
          </div>
          <div class="text">{e.text}</div>
        </article>
      );
    case 'directive':
      return (
        <div class="entry directive">
          {e.mark} {e.text}
        </div>
      );
    case 'transition':
      return (
        <div class="entry transition">
          → {e.text}
          {e.reason ? ` — ${e.reason}` : ''}
        </div>
      );
    case 'output':
      return (
        <div class="entry output">
          <div class="who">{e.title}</div>
          <pre>{e.lines.join('\n')}</pre>
        </div>
      );
    default:
      return (
        <div class={`entry note ${e.tone}`}>
          {e.mark ?? '•'} {e.text}
        </div>
      );
  }
}

/** The transcript: every entry, as a log people can scroll and read by keyboard; it follows the newest entry unless the reader scrolled up. */
export const Transcript = memo(function Transcript({ entries }: { entries: readonly Entry[] }) {
  const box = useRef<HTMLDivElement>(null);
  const pinned = useRef(true);
  useEffect(() => {
    const el = box.current;
    if (el && pinned.current) el.scrollTop = el.scrollHeight;
  }, [entries]);
  // The log shrinks when a live turn below it grows a line: a reader following it keeps seeing its last line.
  useEffect(() => {
    const el = box.current;
    if (!el) return;
    const follow = new ResizeObserver(() => {
      if (pinned.current) el.scrollTop = el.scrollHeight;
    });
    follow.observe(el);
    return () => follow.disconnect();
  }, []);
  return (
    <div
      class="log"
      ref={box}
      role="log"
      aria-label="Transcript"
      tabIndex={0}
      onScroll={(ev) => {
        // Following stops only when the reader scrolled well up (the log also shrinks as live turns appear below it).
        const el = ev.currentTarget;
        pinned.current = el.scrollHeight - el.scrollTop - el.clientHeight < 200;
      }}
    >
      {entries.length === 0 ? <p class="muted">Nothing yet.</p> : entries.map((e) => <EntryView key={e.key} e={e} />)}
    </div>
  );
});

/** The turns streaming now, one per branch, word by word. */
export function LiveTurns({ live }: { live: Record<string, StreamingTurn> }) {
  const turns = Object.entries(live);
  if (turns.length === 0) return null;
  return (
    <div class="live" aria-label="Answering now" tabIndex={0}>
      {turns.map(([key, t]) => (
        <div key={key} class="live-turn" data-branch={t.branch ?? ''}>
          <span class="who">
            {t.who}
            {t.branch ? ` [${t.branch}]` : ''}
          </span>
          {t.tool ? <span class="muted"> ⚙ {t.tool}</span> : null}
          <span class="text">{t.text || ' is answering…'}</span>
        </div>
      ))}
    </div>
  );
}
