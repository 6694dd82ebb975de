import { atWork, type EventState } from './session-state.js';
import type { Catalog, Graph, SessionViewJson } from './types.js';
import { isActive } from './layout.js';
import { personaNamer } from './persona-name.js';

/** Props of the state panel: the session now, its graph, its events' state, the server's catalog (names). */
export interface StatePanelProps {
  view: SessionViewJson;
  graph: Graph;
  events: EventState;
  catalog: Catalog;
}

const percent = (x: number) => `${Math.round(x * 100)}%`;

/** The TUI's state tree (each major's personas, or each workflow state and branch: visits ✓ approvals ↺ reworks), the arbiter's last decision with its scores, and what comes next. */
export function StatePanel({ view, graph, events, catalog }: StatePanelProps) {
  const named = personaNamer(graph, catalog);
  const name = (id: string | null | undefined) => (id ? named(id) : '');
  const running = atWork(view);
  // Running, but in no server: its process stopped mid-turn; the server's words say so ("interrupted").
  const stopped = view.status === 'running' && !running;
  const groups = graph.kind === 'team' ? graph.groups : [{ id: '', label: graph.title }];
  const next = nextLine(view, events, name);
  return (
    <section class="panel state-panel" aria-labelledby="state-h" tabIndex={0}>
      <h2 id="state-h">State</h2>
      <p class="where">
        <span class={`badge ${stopped ? 'stopped' : view.status}`}>{stopped ? view.statusText : view.status === 'awaiting_user' ? 'waiting for you' : view.status}</span> turn {view.turn}
        {view.active ? (
          <>
            {' '}
            · {running ? 'answering' : 'last'}: <strong>{name(view.active)}</strong>
          </>
        ) : null}
      </p>
      {view.awaiting ? (
        <p class="awaiting" role="status">
          {view.awaiting.reason}
        </p>
      ) : null}
      <ul class="tree">
        {groups.map((g) => (
          <li key={g.id}>
            <span class="major">{g.label}</span>
            <span class="chips">
              {graph.nodes
                .filter((n) => (g.id === '' ? !n.group : n.group === g.id))
                .map((n) => {
                  const lit = isActive(view.state, n.id);
                  const m = n.persona ? events.marks[n.persona] : undefined;
                  const visits = view.visits[n.id] ?? 0;
                  return (
                    <span key={n.id} class={`chip${lit ? (running ? ' active' : ' current') : ''}`}>
                      {n.label}
                      {visits ? <small> ×{visits}</small> : null}
                      {m?.ok ? <small class="ok"> ✓{m.ok}</small> : null}
                      {m?.back ? <small class="warn"> ↺{m.back}</small> : null}
                    </span>
                  );
                })}
            </span>
          </li>
        ))}
        {view.branches.length > 0 ? (
          <li>
            <span class="major">branches</span>
            <span class="chips">
              {view.branches.map((b) => (
                <span key={b.id} class={`chip branch ${b.status}`} title={b.error ?? ''}>
                  {b.status === 'running' ? '▸' : b.status === 'done' ? '✓' : b.status === 'failed' ? '✗' : '·'} {b.id} <small>{name(b.agent)}</small>
                </span>
              ))}
            </span>
          </li>
        ) : null}
      </ul>
      {events.decision && events.decision.proposals.length > 0 ? (
        <div class="arbiter">
          <h3>Arbiter</h3>
          <table>
            <caption class="sr-only">The last arbitration: each proposal and its score</caption>
            <thead>
              <tr>
                <th scope="col">proposal</th>
                <th scope="col">score</th>
                <th scope="col">from</th>
              </tr>
            </thead>
            <tbody>
              {events.decision.proposals.map((p, i) => (
                <tr key={i} class={p.status}>
                  <td>
                    {p.status === 'winner' ? '✓ ' : ''}
                    {name(p.targetId ?? p.target)}
                  </td>
                  <td>{p.score === null ? (p.dropReason ?? 'dropped') : p.score.toFixed(2)}</td>
                  <td>{p.source}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      <p class="next">{next}</p>
    </section>
  );
}

/** What comes next: state warming's prediction (top three), else the move waiting at a gate, else nothing known. */
function nextLine(view: SessionViewJson, events: EventState, name: (id: string) => string): string {
  if (view.status === 'ended') return `Over: ${view.endReason ?? 'ended'}`;
  const top = (events.prediction ?? []).slice(0, 3);
  if (top.length > 0) return `Next, predicted: ${top.map((p) => `${name(p.persona)} ${percent(p.confidence)}`).join(' · ')}`;
  const winner = events.decision?.winner;
  if (view.status === 'awaiting_user' && winner?.targetId) return `Next, once you approve: ${name(winner.targetId)}`;
  return 'Next: chosen by the arbiter when this turn ends';
}
