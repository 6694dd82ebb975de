import { useState } from 'preact/hooks';
import { api, ApiError } from './api.js';
import type { Catalog, ListItem, SessionViewJson } from './types.js';

/** Starts a session: a team brief (in a mode), or one of the server's workflows on its typed input. */
export function NewSession({ catalog, onCreated }: { catalog: Catalog; onCreated: (id: string) => void }) {
  const [what, setWhat] = useState('');
  const [text, setText] = useState('');
  const [mode, setMode] = useState('fsm');
  const [problem, setProblem] = useState<string | null>(null);
  const workflow = catalog.workflows.find((w) => w.name === what) ?? null;
  const typed = workflow?.input?.type && workflow.input.type !== 'string' ? workflow.input.type : null;
  const submit = async (ev: Event) => {
    ev.preventDefault();
    setProblem(null);
    const value = text.trim();
    if (!value) return setProblem(workflow ? 'the workflow needs an input' : 'a team session needs a brief');
    if (typed) {
      try {
        JSON.parse(value);
      } catch {
        return setProblem(`the input is a ${typed}: give it as JSON`);
      }
    }
    try {
      const made = await api<SessionViewJson>('/sessions', { json: workflow ? { workflow: workflow.name, input: value } : { brief: value, mode } });
      setText('');
      onCreated(made.id);
    } catch (e) {
      setProblem(e instanceof ApiError ? e.message : String(e));
    }
  };
  return (
    <form class="new" onSubmit={submit} aria-labelledby="new-h">
      <h2 id="new-h">New session</h2>
      <label for="what">Run</label>
      <select id="what" value={what} onChange={(ev) => setWhat(ev.currentTarget.value)}>
        <option value="">the team: {catalog.team.name}</option>
        {catalog.workflows
          .filter((w) => w.input !== null)
          .map((w) => (
            <option key={w.name} value={w.name}>
              workflow: {w.name}
            </option>
          ))}
      </select>
      {workflow ? (
        <p class="muted small">{workflow.description}</p>
      ) : (
        <>
          <label for="mode">Mode</label>
          <select id="mode" value={mode} onChange={(ev) => setMode(ev.currentTarget.value)}>
            {catalog.team.modes.map((m) => (
              <option key={m} value={m}>
                {m === 'fsm' ? 'FSM (the arbiter routes)' : 'SIMPLE (a fixed pipeline)'}
              </option>
            ))}
          </select>
        </>
      )}
      <label for="brief">{workflow ? `Input: ${workflow.input!.name}${typed ? ` (${typed}, as JSON)` : ''}` : 'Brief'}</label>
      {workflow?.input?.description ? (
        <p class="muted small" id="brief-hint">
          {workflow.input.description}
        </p>
      ) : null}
      <textarea
        id="brief"
        rows={3}
        value={text}
        onInput={(ev) => setText(ev.currentTarget.value)}
        aria-describedby={workflow?.input?.description ? 'brief-hint' : undefined}
        placeholder={workflow ? (typed ? '{ … }' : 'the input') : 'what the team should make'}
      />
      {problem ? (
        <p class="error" role="alert">
          {problem}
        </p>
      ) : null}
      <button type="submit">Start</button>
    </form>
  );
}

/** The stored sessions, newest first, with their true statuses; each one a button. */
export function SessionList({ sessions, current, onSelect }: { sessions: readonly ListItem[]; current: string | null; onSelect: (id: string) => void }) {
  return (
    <nav class="sessions" aria-labelledby="sessions-h">
      <h2 id="sessions-h">Sessions</h2>
      {sessions.length === 0 ? <p class="muted">None yet: start one above.</p> : null}
      <ul>
        {sessions.map((s) => (
          <li key={s.id}>
            <button type="button" class={`session${s.id === current ? ' selected' : ''}`} aria-current={s.id === current ? 'true' : undefined} onClick={() => onSelect(s.id)}>
              <span class="brief">{s.brief || '(no brief)'}</span>
              <span class="meta">
                <span class={`badge ${s.status}`}>{s.statusText}</span> {s.workflow ?? s.team} · {s.turns} turn{s.turns === 1 ? '' : 's'} · {s.id.slice(0, 8)}
              </span>
            </button>
          </li>
        ))}
      </ul>
    </nav>
  );
}
