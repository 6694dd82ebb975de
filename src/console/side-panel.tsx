import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from './api.js';
import { FREE_COST } from '../usage/format.js';
import { diffLines } from './diff.js';
import { personaNamer } from './persona-name.js';
import type { Catalog, DeliverablesJson, Graph, SessionViewJson, Step, StepView, Timeline } from './types.js';

type Tab = 'usage' | 'timeline' | 'deliverables';
const TABS: { id: Tab; label: string }[] = [
  { id: 'usage', label: 'Cost' },
  { id: 'timeline', label: 'Timeline' },
  { id: 'deliverables', label: 'Deliverables' },
];

/** Props of the side panel: the session, the catalog (names), a counter that moves when the session does, and what to do with a step or a fork. */
export interface SidePanelProps {
  view: SessionViewJson;
  catalog: Catalog;
  /** The session's graph (its agents' names), once read. */
  graph: Graph | null;
  /** Moves on every stored event: the timeline and deliverables are read again (at most every second). */
  progress: number;
  /** The step looked at (null: now). */
  step: StepView | null;
  onStep: (step: StepView | null) => void;
  /** A fork was made: the console moves to it. */
  onFork: (id: string) => void;
}

/** Cost and tokens per persona, the timeline of steps (look at one, fork from it), and the deliverables, as tabs. */
export function SidePanel(props: SidePanelProps) {
  const [tab, setTab] = useState<Tab>('usage');
  return (
    <section class="panel side" aria-label="Session details">
      <div role="tablist" aria-label="Session details" class="tabs">
        {TABS.map((t) => (
          <button key={t.id} type="button" role="tab" id={`tab-${t.id}`} aria-selected={tab === t.id} aria-controls={`panel-${t.id}`} onClick={() => setTab(t.id)}>
            {t.label}
          </button>
        ))}
      </div>
      <div role="tabpanel" id={`panel-${tab}`} aria-labelledby={`tab-${tab}`} class="tabpanel">
        {tab === 'usage' ? <Usage view={props.view} name={personaNamer(props.graph, props.catalog)} /> : tab === 'timeline' ? <TimelineView {...props} /> : <DeliverablesView {...props} />}
      </div>
    </section>
  );
}

const money = (cost: number | null, calls: number, free: boolean) => (calls === 0 ? '—' : free ? FREE_COST : cost === null ? 'no price' : `$${cost.toFixed(4)}`);

/** Calls, tokens and cost per persona and in all (the meter's figures, as !cost shows them). */
function Usage({ view, name }: { view: SessionViewJson; name: (id: string) => string }) {
  const u = view.usage;
  return (
    <table class="usage">
      <caption>Cost and tokens</caption>
      <thead>
        <tr>
          <th scope="col">who</th>
          <th scope="col">calls</th>
          <th scope="col">tokens</th>
          <th scope="col">cost</th>
        </tr>
      </thead>
      <tbody>
        {Object.entries(u.byPersona).map(([id, t]) => (
          <tr key={id}>
            <th scope="row">{name(id)}</th>
            <td>{t.calls}</td>
            <td>{t.tokens}</td>
            <td>{money(t.cost, t.calls, u.free)}</td>
          </tr>
        ))}
      </tbody>
      <tfoot>
        <tr>
          <th scope="row">total</th>
          <td>{u.calls}</td>
          <td>{u.tokens}</td>
          <td>{money(u.cost, u.calls, u.free)}</td>
        </tr>
      </tfoot>
    </table>
  );
}

/** Reads a JSON resource of the session again when `progress` moves (at most every second). */
function useRead<T>(path: string, progress: number): { data: T | null; error: string | null } {
  const [data, setData] = useState<T | null>(null);
  const [error, setError] = useState<string | null>(null);
  const [tick, setTick] = useState(0);
  useEffect(() => {
    const t = window.setTimeout(() => setTick((n) => n + 1), data === null ? 0 : 1000);
    return () => window.clearTimeout(t);
  }, [path, progress]);
  useEffect(() => {
    let live = true;
    api<T>(path).then(
      (d) => {
        if (!live) return;
        setData(d);
        setError(null);
      },
      (e: unknown) => {
        if (live) setError(e instanceof ApiError ? e.message : String(e));
      },
    );
    return () => {
      live = false;
    };
  }, [path, tick]);
  return { data, error };
}

/** The session's steps from its journal: look at the session as it was after one; fork a new session from it and go on with other input. */
function TimelineView({ view, progress, step, onStep, onFork }: SidePanelProps) {
  const { data, error } = useRead<Timeline>(`/sessions/${encodeURIComponent(view.id)}/timeline`, progress);
  const [then, setThen] = useState('');
  const [problem, setProblem] = useState<string | null>(null);
  const look = async (s: Step) => {
    setProblem(null);
    try {
      onStep(await api<StepView>(`/sessions/${encodeURIComponent(view.id)}/steps/${s.step}`));
    } catch (e) {
      setProblem(e instanceof ApiError ? e.message : String(e));
    }
  };
  const fork = async () => {
    if (!step) return;
    setProblem(null);
    try {
      const made = await api<SessionViewJson>(`/sessions/${encodeURIComponent(view.id)}/fork`, { json: { step: step.step } });
      if (then.trim()) await api(`/sessions/${encodeURIComponent(made.id)}/input`, { json: { text: then.trim() } });
      setThen('');
      onStep(null);
      onFork(made.id);
    } catch (e) {
      setProblem(e instanceof ApiError ? e.message : String(e));
    }
  };
  if (error) return <p class="error">{error}</p>;
  if (!data) return <p class="muted">Reading the journal…</p>;
  return (
    <div class="timeline">
      {step ? (
        <div class="step-detail" aria-live="polite">
          <h3>After step {step.step}</h3>
          <p>
            {step.session.status === 'awaiting_user' ? 'waiting for you' : step.session.status} · turn {step.session.turn} · {step.session.state.join(', ') || 'not started'}
          </p>
          {step.session.awaiting ? <p class="muted">{step.session.awaiting.reason}</p> : null}
          <label for="fork-then">Then send (optional)</label>
          <textarea id="fork-then" rows={2} value={then} onInput={(ev) => setThen(ev.currentTarget.value)} placeholder="other input for the fork" />
          <div class="row">
            <button type="button" onClick={fork}>
              Fork from step {step.step}
            </button>
            <button type="button" class="quiet" onClick={() => onStep(null)}>
              Back to now
            </button>
          </div>
        </div>
      ) : null}
      {problem ? (
        <p class="error" role="alert">
          {problem}
        </p>
      ) : null}
      <ol class="steps">
        {data.steps.map((s) => (
          <li key={s.step}>
            <button type="button" class={`step ${s.by}${step?.step === s.step ? ' selected' : ''}`} aria-current={step?.step === s.step ? 'step' : undefined} onClick={() => look(s)}>
              <span class="n">{s.step}</span> {s.title}
            </button>
          </li>
        ))}
      </ol>
    </div>
  );
}

/** The session's deliverables: the output, the decisions, the final texts, the workspaces with their files and diffs. */
function DeliverablesView({ view, progress }: SidePanelProps) {
  const { data, error } = useRead<DeliverablesJson>(`/sessions/${encodeURIComponent(view.id)}/deliverables`, progress);
  if (error) return <p class="error">{error}</p>;
  if (!data) return <p class="muted">Reading…</p>;
  const d = data.decisions;
  return (
    <div class="deliverables">
      {data.forkedFrom ? (
        <p class="muted">
          Forked from {data.forkedFrom.id.slice(0, 8)} at step {data.forkedFrom.step}
        </p>
      ) : null}
      <h3>Output</h3>
      {data.output === null ? <p class="muted">No output (yet).</p> : <pre class="output">{typeof data.output === 'string' ? data.output : JSON.stringify(data.output, null, 2)}</pre>}
      <h3>Decisions</h3>
      {d.pinned.length + d.approvals.length + d.verdicts.length + d.debates.length === 0 ? <p class="muted">None yet.</p> : null}
      <ul>
        {d.pinned.map((p, i) => (
          <li key={`p${i}`}>
            {p.by}: {p.text}
          </li>
        ))}
        {d.approvals.map((a, i) => (
          <li key={`a${i}`}>
            turn {a.turn}: {a.by} {a.status === 'APPROVED' ? 'approved' : 'sent back'} {a.of}
            {a.reason ? ` — ${a.reason}` : ''}
          </li>
        ))}
        {d.verdicts.map((v, i) => (
          <li key={`v${i}`} class={v.approve ? 'ok' : 'warn'}>
            {v.state} round {v.round}: {v.reviewer} {v.agree ? 'agrees' : 'does not agree'}, {v.approve ? 'approves' : 'wants changes'} — {v.feedback}
          </li>
        ))}
        {d.debates.map((b, i) => (
          <li key={`d${i}`}>
            debate in {b.state}: {b.rounds} round(s), {b.consensus ? 'consensus' : b.synthesised ? 'synthesised' : 'no consensus'}
          </li>
        ))}
      </ul>
      <h3>Final texts</h3>
      {data.finals.map((f) => (
        <details key={`${f.persona}-${f.branch ?? ''}`}>
          <summary>
            {f.name}
            {f.branch ? ` [${f.branch}]` : ''} · turn {f.turn}
          </summary>
          <pre class="final">{f.text}</pre>
        </details>
      ))}
      {data.workspaces.length > 0 ? <h3>Workspaces</h3> : null}
      {data.workspaces.map((w) => (
        <details key={w.name} open>
          <summary>
            {w.name}
            {w.persona ? ` · ${w.persona}` : ''} · {w.files.length} file(s)
          </summary>
          <p class="path">
            <code>{w.dir ?? '(no longer on disk)'}</code>
          </p>
          <ul class="files">
            {w.files.map((f) => (
              <li key={f.path}>
                <span class={`status ${f.status}`}>{f.status}</span> <code>{f.path}</code>
              </li>
            ))}
          </ul>
          {w.diff ? (
            <pre class="diff" tabIndex={0} aria-label={`Diff of ${w.name}`}>
              {diffLines(w.diff).map((l, i) => (
                <span key={i} class={l.kind}>
                  {l.text}
                  {'\n'}
                </span>
              ))}
            </pre>
          ) : null}
        </details>
      ))}
    </div>
  );
}
