import { useEffect, useState } from 'preact/hooks';
import { api, ApiError, setToken } from './api.js';
import { Controls } from './controls.js';
import { GraphView } from './graph-view.js';
import { SidePanel } from './side-panel.js';
import { NewSession, SessionList } from './start-panel.js';
import { StatePanel } from './state-panel.js';
import { LiveTurns, Transcript } from './transcript.js';
import type { Catalog, Graph, ListItem, StepView } from './types.js';
import { useSession, type Connection } from './use-session.js';
import { atWork, followList, followStream, streamingNow } from './session-state.js';

const selectedFromUrl = () => decodeURIComponent(location.hash.slice(1)) || null;

/** Asks for the bearer token, only once the server said it wants one. */
function TokenForm({ onSet }: { onSet: () => void }) {
  const [value, setValue] = useState('');
  return (
    <form
      class="token"
      onSubmit={(ev) => {
        ev.preventDefault();
        setToken(value);
        onSet();
      }}
    >
      <label for="token">This server needs its token (TROUPE_SERVE_TOKEN)</label>
      <input id="token" type="password" autocomplete="off" value={value} onInput={(ev) => setValue(ev.currentTarget.value)} />
      <button type="submit">Use it</button>
    </form>
  );
}

const WORDS: Record<Connection, string> = { connecting: 'connecting…', live: 'live', gone: 'the server is gone — reconnecting…', over: 'session over' };

/** The troupe web console: start sessions, watch the machine (graph, state tree, transcript), steer it, travel in time, get the deliverables. */
export function App() {
  const [catalog, setCatalog] = useState<Catalog | null>(null);
  const [needToken, setNeedToken] = useState(false);
  const [down, setDown] = useState(false);
  const [sessions, setSessions] = useState<ListItem[]>([]);
  const [id, setId] = useState<string | null>(selectedFromUrl());
  const [graph, setGraph] = useState<Graph | null>(null);
  const [step, setStep] = useState<StepView | null>(null);
  const [outputs, setOutputs] = useState<{ key: number; title: string; lines: string[]; tone: string }[]>([]);
  const { events, view, connection, reload } = useSession(catalog ? id : null, catalog?.events ?? []);

  const load = () =>
    api<Catalog>('/catalog').then(
      (c) => {
        setCatalog(c);
        setNeedToken(false);
        setDown(false);
      },
      (e: unknown) => (e instanceof ApiError && e.status === 401 ? setNeedToken(true) : setDown(true)),
    );
  const list = () =>
    api<{ sessions: ListItem[] }>('/sessions').then(
      (r) => {
        setSessions(r.sessions);
        setDown(false);
      },
      (e: unknown) => (e instanceof ApiError && e.status === 401 ? setNeedToken(true) : setDown(true)),
    );
  useEffect(() => {
    void load();
    const onHash = () => setId(selectedFromUrl());
    addEventListener('hashchange', onHash);
    return () => removeEventListener('hashchange', onHash);
  }, []);
  useEffect(() => {
    if (!catalog) return;
    void list();
    const t = setInterval(list, 5000);
    return () => clearInterval(t);
  }, [catalog]);
  useEffect(() => {
    setGraph(null);
    setStep(null);
    setOutputs([]);
    if (id && catalog) api<Graph>(`/sessions/${encodeURIComponent(id)}/graph`).then(setGraph, () => undefined);
  }, [id, catalog]);
  // The server came back (the stream reconnected): read what may have changed while it was away.
  useEffect(() => {
    if (connection === 'live') void list();
  }, [connection]);
  useEffect(() => {
    if (events.ended) void list();
  }, [events.ended]);
  // The list shows the open session's status as the console does (its view followed by the stream), not up to one poll later.
  useEffect(() => {
    if (view) void list();
  }, [view?.id, view?.status, view?.hosted]);

  const select = (next: string) => {
    location.hash = encodeURIComponent(next);
    setId(next);
    void list();
  };
  const live = view ? streamingNow(view, events.live) : events.live;
  const current = view ? followStream(view, live) : null;
  const shown = step?.session ?? current;
  const listed = followList(sessions, current);
  const status = down ? 'the server is gone — reconnecting…' : id ? WORDS[connection] : catalog ? 'connected' : 'connecting…';
  return (
    <>
      <header class="top-bar">
        <h1>
          troupe <span class="muted">console</span>
        </h1>
        {catalog ? <span class="team">team {catalog.team.name}</span> : null}
        <span class={`conn ${down || connection === 'gone' ? 'down' : ''}`} role="status" aria-live="polite">
          {status}
        </span>
      </header>
      {needToken ? (
        <TokenForm
          onSet={() => {
            void load();
          }}
        />
      ) : null}
      {catalog ? (
        <div class="layout">
          <aside class="left" aria-label="Sessions">
            <NewSession catalog={catalog} onCreated={select} />
            <SessionList sessions={listed} current={id} onSelect={select} />
          </aside>
          <main class="center" aria-label="Session">
            {!id || !view || !shown ? (
              <p class="empty muted">{id ? 'Reading the session…' : 'Start a session, or pick one from the list.'}</p>
            ) : (
              <>
                <h2 class="session-title">
                  {view.kind === 'workflow' ? 'Workflow' : 'Team'} {view.definition} <span class="muted">· {view.id.slice(0, 8)}</span>
                  {view.forkedFrom ? (
                    <span class="muted">
                      {' '}
                      · fork of {view.forkedFrom.id.slice(0, 8)} at step {view.forkedFrom.step}
                    </span>
                  ) : null}
                </h2>
                <p class="brief">{view.brief}</p>
                {step ? (
                  <p class="time-travel" role="status">
                    Showing the session as it was after step {step.step}.{' '}
                    <button type="button" class="quiet" onClick={() => setStep(null)}>
                      Back to now
                    </button>
                  </p>
                ) : null}
                <div class="machine">
                  <div class="graph-box" tabIndex={0} aria-label="Graph">
                    {graph ? <GraphView graph={graph} configuration={shown.state} running={atWork(shown)} moves={step ? [] : events.moves} visits={shown.visits} /> : null}
                  </div>
                  {graph ? <StatePanel view={shown} graph={graph} events={events} catalog={catalog} /> : null}
                </div>
                <section class="talk" aria-label="Transcript and controls">
                  <Transcript entries={events.entries} />
                  <LiveTurns live={live} />
                  {outputs.length > 0 ? (
                    <div class="outputs" aria-live="polite" tabIndex={0} aria-label="Answers to your commands">
                      {outputs.slice(-3).map((o) => (
                        <div key={o.key} class={`entry output ${o.tone}`}>
                          <div class="who">
                            {o.title}{' '}
                            <button type="button" class="quiet" aria-label={`Close ${o.title}`} onClick={() => setOutputs((all) => all.filter((x) => x.key !== o.key))}>
                              ×
                            </button>
                          </div>
                          <pre>{o.lines.join('\n')}</pre>
                        </div>
                      ))}
                    </div>
                  ) : null}
                  <Controls
                    view={current ?? view}
                    events={events}
                    catalog={catalog}
                    onOutput={(title, lines, tone) => {
                      setOutputs((all) => [...all, { key: Date.now() + all.length, title, lines, tone }]);
                      reload();
                    }}
                  />
                </section>
              </>
            )}
          </main>
          {id && view ? (
            <aside class="right" aria-label="Details">
              <SidePanel view={view} catalog={catalog} graph={graph} progress={events.lastSeq} step={step} onStep={setStep} onFork={select} />
            </aside>
          ) : null}
        </div>
      ) : down ? (
        <p class="empty">The server cannot be reached; this page tries again when you reload it.</p>
      ) : null}
    </>
  );
}
