import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render } from 'ink-testing-library';
import { arbitrate } from '../../src/arbiter/arbitrate.js';
import { Arbitration, arbitrationRows } from '../../src/ui/Arbitration.js';
import { Header } from '../../src/ui/Header.js';
import { InputLine } from '../../src/ui/InputLine.js';
import { LiveTurn } from '../../src/ui/LiveTurn.js';
import { StateLine } from '../../src/ui/StateLine.js';
import { Transcript } from '../../src/ui/Transcript.js';
import { ACTIVE, ALL_HOSTILE, HOSTILE } from '../helpers/hostile-text.js';
import { studio } from '../helpers/team.js';

const def = studio().def;
afterEach(() => cleanup());

describe('the UI renders hostile text made safe', () => {
  it('transcript items: turns, briefs, transitions, notes (key decisions), output lines', () => {
    const items = [
      { id: 'a', kind: 'user' as const, text: ALL_HOSTILE, label: 'Brief' as const },
      {
        id: 'b',
        kind: 'turn' as const,
        persona: 'ceo',
        where: `STRATEGIC › ${HOSTILE.osc0_title}`,
        turn: 1,
        text: ALL_HOSTILE,
        tag: `REQUEST_REWORK: ${HOSTILE.osc52_clipboard}`,
        status: 'ok' as const,
      },
      { id: 'c', kind: 'transition' as const, text: `STRATEGIC › CEO -> ${HOSTILE.c1_csi} (USER)`, reason: HOSTILE.csi_clear! },
      { id: 'd', kind: 'note' as const, text: `decision pinned: ${HOSTILE.osc0_title}`, tone: 'ok' as const, mark: HOSTILE.bell! },
      { id: 'e', kind: 'output' as const, title: HOSTILE.bell!, lines: Object.values(HOSTILE), tone: 'info' as const },
    ];
    const frame = render(<Transcript items={items} />).lastFrame()!;
    expect(frame).toContain('visible hidden instructions end');
    expect(frame).toContain('decision pinned: title set');
    expect(frame).not.toMatch(ACTIVE);
  });

  it('the live turn (streamed words and the model label), the state line, the arbitration, the header and the input line', () => {
    const live = { turnId: 't', persona: 'cmo', path: 'STRATEGIC.cmo', model: HOSTILE.osc0_title!, attempt: 1, text: ALL_HOSTILE, startedAt: 0 };
    const decision = arbitrate({
      from: 'ceo',
      proposals: [{ target: `cfo${HOSTILE.csi_hidden}`, source: 'agent', criteria: { urgency: 1, dependency: 1, user_intent: 1 }, reason: '', proposer: 'ceo' }],
      roster: def.agents,
      weights: def.team!.arbiter.weights,
      blockingDependency: null,
    });
    const frames = [
      render(<LiveTurn live={live} def={def} width={200} maxLines={40} now={1_000} />).lastFrame()!,
      render(<StateLine situation={{ current: HOSTILE.cr_overwrite!, next: { kind: 'pending', to: HOSTILE.backspace! }, status: HOSTILE.osc52_clipboard!, stage: HOSTILE.c1_csi! }} />).lastFrame()!,
      render(<Arbitration rows={arbitrationRows({ from: 'STRATEGIC.ceo', decision }, def, 200)} />).lastFrame()!,
      render(<Header team={HOSTILE.osc0_title!} mode="fsm" model={HOSTILE.osc52_clipboard!} offline={false} />).lastFrame()!,
      render(<InputLine value={HOSTILE.csi_cursor_up!} hint={HOSTILE.bell!} candidates={[HOSTILE.lone_esc!, 'x']} />).lastFrame()!,
    ];
    for (const frame of frames) expect(frame).not.toMatch(ACTIVE);
    expect(frames[0]).toContain('visible hidden instructions end');
  });
});
