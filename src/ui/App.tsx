import type React from 'react';
import { useEffect, useState } from 'react';
import type { TroupeEvent } from '../engine/event-map.js';
import { Box, useApp } from 'ink';
import { complete } from '../commands/complete.js';
import { executeLine, type WorkflowLauncher } from '../commands/execute.js';
import type { MemorySource } from '../commands/memory-source.js';
import { situation } from '../commands/situation.js';
import { displayName } from '../report/names.js';
import { predictionText } from '../warming/warming-view.js';
import type { TroupeSession } from '../session/troupe-session.js';
import { Arbitration, arbitrationRows } from './Arbitration.js';
import { Footer } from './Footer.js';
import { Header } from './Header.js';
import { hintFor } from './hints.js';
import { InputLine, inputRows } from './InputLine.js';
import { LiveTurn } from './LiveTurn.js';
import { StateLine } from './StateLine.js';
import { planScreen } from './screen-plan.js';
import { type NameHints, Transcript } from './Transcript.js';
import { Tree } from './Tree.js';
import { layoutTree, teamTreeLines, treeHeight, workflowTreeLines } from './tree-rows.js';
import { useLineEditor } from './use-line-editor.js';
import { useSessionView } from './use-session-view.js';
import { useTerminalSize } from './use-terminal-size.js';
import { useNow } from './use-now.js';

/** Below this width the state tree is hidden so the transcript keeps its room. */
export const TREE_MIN_COLUMNS = 70;
/** Below this height the state tree is hidden too. */
export const TREE_MIN_ROWS = 18;

/** Props of the terminal UI. */
export interface AppProps {
  session: TroupeSession;
  memory?: MemorySource;
  /** Events of a resumed session, shown as its history. */
  history?: readonly TroupeEvent[];
  /** Called once the UI listens to the session (a resumed turn starts then, so it streams on screen). */
  onReady?: () => void;
  /** Fixed terminal size (tests); read from stdout otherwise. */
  columns?: number;
  rows?: number;
  /** Called once when the user leaves. */
  onQuit?: () => void;
  /** Lists and opens workflows for `/workflow`. */
  workflows?: WorkflowLauncher;
  /** A workflow session was opened, or a fork (`!rewind`, to be resumed once the UI listens): the UI moves to it. */
  onSwitch?: (next: TroupeSession, resume?: boolean) => void;
  /** How troupe's own lines name the command the user types (`node dist/cli.js resume …` before `npm link`). */
  hints?: NameHints;
}

/** The troupe terminal UI: watch the team work and steer it live. */
export function App({ session: running, memory, history, onReady, columns, rows, onQuit, workflows, onSwitch, hints }: AppProps): React.JSX.Element {
  const { view, session, usage, addOutput } = useSessionView(running, history, onReady);
  const def = running.def;
  const model = { label: running.model.label, offline: running.model.offline ?? false };
  const size = useTerminalSize();
  const width = columns ?? size.columns;
  const height = rows ?? size.rows;
  const { exit } = useApp();
  const [quitting, setQuitting] = useState(false);

  const submit = (line: string) => {
    if (quitting) return;
    const outcome = executeLine(line, { session: running, usage: () => running.usage(), memory, workflows, warming: () => running.warming() });
    if (outcome.kind === 'output') addOutput(outcome.title, outcome.lines, outcome.tone);
    if (outcome.kind === 'later') {
      outcome.lines.then(
        (lines) => addOutput(outcome.title, lines, 'info'),
        (error: unknown) => addOutput(outcome.title, [error instanceof Error ? error.message : String(error)], 'error'),
      );
    }
    if (outcome.kind === 'switch') {
      addOutput(outcome.title, [`opening ${line.trim()} …`], 'info');
      outcome.session.then(
        (next) => onSwitch?.(next, outcome.resume === true),
        (error: unknown) => addOutput(outcome.title, (error instanceof Error ? error.message : String(error)).split('\n'), 'error'),
      );
    }
    if (outcome.kind === 'quit') setQuitting(true);
  };
  const editor = useLineEditor({
    onSubmit: submit,
    onInterrupt: () => submit('!quit'),
    complete: (line) => complete(line, def),
    isActive: !quitting,
  });
  useEffect(() => {
    if (!quitting) return;
    onQuit?.();
    exit();
  }, [quitting]);

  const branches = Object.keys(view.branches).length;
  const now = useNow(view.live !== null || branches > 0);
  const snapshot = memory ? memory() : null;
  // Every part is laid out at this width first, so the frame is planned to fit the terminal (see screen-plan.ts).
  const tree = width >= TREE_MIN_COLUMNS && height >= TREE_MIN_ROWS ? layoutTree(def.kind === 'workflow' ? workflowTreeLines(def, session) : teamTreeLines(def, session, view.marks), width) : null;
  const plan = planScreen({
    rows: height,
    header: model.offline ? 2 : 1,
    tree: tree ? treeHeight(tree) : 0,
    live: branches > 0 ? { kind: 'branches', count: branches } : view.live ? { kind: 'turn' } : { kind: 'none' },
    arbitration: arbitrationRows(view.arbitration, def, width).length,
    candidates: editor.candidates.length > 1,
    input: inputRows(editor.buffer, width, quitting).length,
  });
  return (
    <Box flexDirection="column" width={width}>
      <Transcript key={view.epoch} items={view.log} width={width} hints={hints} />
      <Box flexDirection="column" marginTop={plan.margin ? 1 : 0}>
        <Header team={def.name} mode={def.kind === 'workflow' ? 'workflow' : session.mode} model={model.label} offline={model.offline} notice={plan.demoNotice} />
        <StateLine situation={situation(def, session)} predicted={view.live?.predicted?.length ? predictionText(view.live.predicted, (id) => displayName(def, id)) : undefined} />
        {tree && plan.tree ? <Tree layout={tree} /> : null}
        <LiveTurn
          live={plan.liveHead ? view.live : null}
          branches={view.branches}
          def={def}
          width={width}
          maxLines={plan.liveLines}
          maxBranches={plan.branchRows}
          now={now}
          modelLabel={running.model.offline && running.model.free ? 'demo model' : undefined}
        />
        <Arbitration rows={arbitrationRows(view.arbitration, def, width, plan.arbitrationRows)} />
        <Footer turn={session.turn} turnBudget={session.turnBudget} usage={usage} memory={snapshot} />
        <InputLine
          value={editor.buffer}
          hint={quitting ? 'bye' : hintFor(session, width)}
          candidates={plan.candidates ? editor.candidates : []}
          disabled={quitting}
          width={width}
          maxRows={plan.inputRows}
        />
      </Box>
    </Box>
  );
}
