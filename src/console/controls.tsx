import { useState } from 'preact/hooks';
import { api, ApiError } from './api.js';
import type { EventState } from './session-state.js';
import type { Catalog, SessionViewJson } from './types.js';

/** Props of the controls: the session, its events' state, the catalog (personas, commands), and where answers go. */
export interface ControlsProps {
  view: SessionViewJson;
  events: EventState;
  catalog: Catalog;
  /** Shows what a line answered (an inspection's lines) or why it was refused. */
  onOutput: (title: string, lines: string[], tone: 'info' | 'error') => void;
}

const INSPECT: Record<'team' | 'workflow', string[]> = {
  team: ['status', 'history', 'cost', 'memory', 'help'],
  workflow: ['status', 'branches', 'debate', 'cost', 'help'],
};

/** The controls for every command: approve, rework with a reason, hand off to a persona, switch mode, continue, allow or deny a command, answer or interject, inspect. */
export function Controls({ view, events, catalog, onOutput }: ControlsProps) {
  const [reason, setReason] = useState('');
  const [persona, setPersona] = useState(catalog.team.personas[0]?.id ?? '');
  const [line, setLine] = useState('');
  const [busy, setBusy] = useState(false);
  const team = view.kind === 'team';
  const over = view.status === 'ended';
  const send = async (text: string) => {
    setBusy(true);
    try {
      const out = await api<{ kind: string; title?: string; lines?: string[] }>(`/sessions/${encodeURIComponent(view.id)}/input`, { json: { text } });
      if (out.kind === 'output') onOutput(out.title ?? text, out.lines ?? [], 'info');
      return true;
    } catch (error) {
      onOutput(text, [error instanceof ApiError ? error.message : String(error)], 'error');
      return false;
    } finally {
      setBusy(false);
    }
  };
  const waiting = view.status === 'awaiting_user';
  return (
    <section class="controls" aria-label="Steer the session">
      <form
        class="reply"
        onSubmit={async (ev) => {
          ev.preventDefault();
          if (line.trim() && (await send(line.trim()))) setLine('');
        }}
      >
        <label for="line">{over ? 'The session is over' : waiting ? `Answer${view.awaiting ? `: ${view.awaiting.reason}` : ''}` : 'Interject, or type a !command'}</label>
        <div class="row">
          <input
            id="line"
            type="text"
            value={line}
            disabled={over}
            autocomplete="off"
            list="commands"
            onInput={(ev) => setLine(ev.currentTarget.value)}
            placeholder={waiting ? 'your answer' : 'a line for the team, or !command'}
          />
          <datalist id="commands">
            {catalog.commands.map((c) => (
              <option key={c.name} value={`!${c.name}`}>
                {c.summary}
              </option>
            ))}
          </datalist>
          <button type="submit" disabled={over || busy || !line.trim()}>
            Send
          </button>
        </div>
      </form>
      {events.asked ? (
        <div class="row asked" role="alert">
          <span>
            {events.asked.who} wants to run <code>{events.asked.command}</code>
          </span>
          <button type="button" onClick={() => send('!allow')}>
            Allow
          </button>
          <button type="button" onClick={() => send('!deny')}>
            Deny
          </button>
        </div>
      ) : null}
      <div class="row buttons">
        {team ? (
          <button type="button" disabled={over || busy} onClick={() => send('!approve')}>
            Approve
          </button>
        ) : null}
        <button type="button" disabled={over || busy} onClick={() => send('!continue')}>
          Continue
        </button>
        {team ? (
          <form
            class="inline"
            onSubmit={async (ev) => {
              ev.preventDefault();
              if (await send(`!rework ${reason}`.trim())) setReason('');
            }}
          >
            <label for="reason" class="sr-only">
              Rework reason
            </label>
            <input id="reason" type="text" value={reason} disabled={over} placeholder="why it needs rework" onInput={(ev) => setReason(ev.currentTarget.value)} />
            <button type="submit" disabled={over || busy}>
              Rework
            </button>
          </form>
        ) : null}
        {team ? (
          <form
            class="inline"
            onSubmit={(ev) => {
              ev.preventDefault();
              void send(`!handoff ${persona}`);
            }}
          >
            <label for="handoff" class="sr-only">
              Hand off to
            </label>
            <select id="handoff" value={persona} disabled={over} onChange={(ev) => setPersona(ev.currentTarget.value)}>
              {catalog.team.personas.map((p) => (
                <option key={p.id} value={p.id}>
                  {p.name} ({p.major})
                </option>
              ))}
            </select>
            <button type="submit" disabled={over || busy}>
              Hand off
            </button>
          </form>
        ) : null}
        {team ? (
          <span class="inline" role="group" aria-label="Mode">
            {catalog.team.modes.map((m) => (
              <button key={m} type="button" aria-pressed={events.mode === m} disabled={over || busy} onClick={() => send(`!${m}`)}>
                {m.toUpperCase()}
              </button>
            ))}
          </span>
        ) : null}
      </div>
      <div class="row buttons inspect" role="group" aria-label="Inspect">
        {INSPECT[team ? 'team' : 'workflow'].map((name) => (
          <button key={name} type="button" class="quiet" disabled={busy} onClick={() => send(`!${name}`)}>
            !{name}
          </button>
        ))}
      </div>
    </section>
  );
}
