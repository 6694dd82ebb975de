import stringWidth from 'string-width';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render } from 'ink-testing-library';
import { Header } from '../../src/ui/Header.js';
import { StateLine } from '../../src/ui/StateLine.js';
import { Tree } from '../../src/ui/Tree.js';
import { layoutTree, teamTreeLines } from '../../src/ui/tree-rows.js';
import { LogLine, Transcript } from '../../src/ui/Transcript.js';
import { LiveTurn, tailLines } from '../../src/ui/LiveTurn.js';
import { Volatile } from '../../src/ui/Volatile.js';
import { Box, Text } from 'ink';
import { Arbitration, arbitrationRows } from '../../src/ui/Arbitration.js';
import { Footer } from '../../src/ui/Footer.js';
import { InputLine } from '../../src/ui/InputLine.js';
import { hintFor } from '../../src/ui/hints.js';
import { initialState } from '../../src/engine/step.js';
import { arbitrate } from '../../src/arbiter/arbitrate.js';
import { sessionUsage } from '../../src/usage/session-usage.js';
import { PriceTable } from '../../src/usage/price-table.js';
import { UsageMeter } from '../../src/usage/usage-meter.js';
import { studio } from '../helpers/team.js';

const def = studio().def;
afterEach(() => cleanup());

describe('Header', () => {
  it('shows team, mode, model and the demo notice when offline', () => {
    const { lastFrame } = render(<Header team="V7 Studio" mode="simple" model="demo" offline />);
    expect(lastFrame()).toContain('troupe · V7 Studio · SIMPLE · demo model');
    expect(lastFrame()).toContain('DEMO MODE · offline scripted model · set OPENAI_API_KEY');
    const online = render(<Header team="V7 Studio" mode="fsm" model="openai-compatible api.openai.com" offline={false} />);
    expect(online.lastFrame()).toContain('FSM · openai-compatible api.openai.com');
    expect(online.lastFrame()).not.toContain('DEMO');
  });

  it('heads a workflow as troupe run does: "workflow <name>", no mode (it said "clarify_then_write · WORKFLOW")', () => {
    const { lastFrame } = render(<Header team="clarify_then_write" mode="workflow" model="demo" offline />);
    expect(lastFrame()).toContain('troupe · workflow clarify_then_write · demo model');
    expect(lastFrame()).not.toContain('WORKFLOW');
  });
});

describe('StateLine', () => {
  it('renders current -> pending and the status', () => {
    const { lastFrame } = render(<StateLine situation={{ current: 'STRATEGIC › CEO', next: { kind: 'pending', to: 'STRATEGIC › CFO' }, status: 'waiting for you: gate' }} />);
    expect(lastFrame()).toContain('STRATEGIC › CEO -> pending: STRATEGIC › CFO  ·  waiting for you: gate');
  });
});

const StateTree = ({ session, marks }: { session: Parameters<typeof teamTreeLines>[1]; marks: Parameters<typeof teamTreeLines>[2] }) => (
  <Tree layout={layoutTree(teamTreeLines(def, session, marks), 80)} />
);

describe('the state tree', () => {
  it('lists majors and personas with the active one marked, visits, approvals and reworks', () => {
    const s = { ...initialState(def, { id: 's' }), status: 'running' as const, active: 'cfo', visits: { 'STRATEGIC.cfo': 2, 'STRATEGIC.ceo': 1 } };
    const marks = { cfo: { ok: 1, back: 1 } };
    const frame = render(<StateTree session={s} marks={marks} />).lastFrame()!;
    expect(frame).toMatch(/STRATEGIC\s+CEO ×1\s+CFO ▸\s+×2 ✓1 ↺1\s+CMO/);
    expect(frame).toMatch(/CREATIVE\s+Creative Partner\s+Game Designer/);
    expect(frame).toMatch(/TECHNICAL\s+Lead Engineer/);
    expect(frame).toMatch(/USER_INTERACTION\s+You/);
    expect(frame).not.toContain('You ◂');
  });

  it('marks the user when the session waits', () => {
    const s = { ...initialState(def, { id: 's' }), status: 'awaiting_user' as const };
    expect(render(<StateTree session={s} marks={{}} />).lastFrame()).toContain('You ◂');
  });
});

describe('Transcript', () => {
  it('renders turns tagged with persona and directive, user lines, transitions, notes and output', () => {
    const items = [
      { id: 'a', kind: 'user' as const, text: 'bees', label: 'Brief' as const },
      { id: 'b', kind: 'turn' as const, persona: 'ceo', where: 'STRATEGIC › CEO', turn: 1, text: 'Buzz.', tag: 'HANDOFF_TO_AGENT → cfo', status: 'ok' as const },
      { id: 'c', kind: 'transition' as const, text: 'STRATEGIC › CEO -> STRATEGIC › CFO (HANDOFF_TO_AGENT)', reason: null },
      { id: 'd', kind: 'note' as const, text: 'hello', tone: 'info' as const },
      { id: 'e', kind: 'output' as const, title: 'status', lines: ['state: x'], tone: 'info' as const },
    ];
    const frame = render(<Transcript items={items} />).lastFrame()!;
    expect(frame).toContain('Brief › bees');
    expect(frame).toContain('▸ STRATEGIC › CEO · turn 1 · HANDOFF_TO_AGENT → cfo');
    expect(frame).toContain('  Buzz.');
    expect(frame).toContain('STRATEGIC › CEO -> STRATEGIC › CFO (HANDOFF_TO_AGENT)');
    expect(frame).toContain('• hello');
    expect(frame).toContain('state: x');
  });

  it('lays a turn out in the width: heading and words wrap at spaces under their words, no row wider, none starting with the space it broke at', () => {
    const text = `The keeper tends a failing light on a stormy island, and every choice spends the oil that is left. ${'Ships pass. '.repeat(8)}`;
    const item = { id: 'b', kind: 'turn' as const, persona: 'ceo', where: 'STRATEGIC › CEO', turn: 1, text, tag: 'HANDOFF_TO_AGENT → cfo', status: 'ok' as const };
    const rows = render(<LogLine item={item} width={40} />)
      .lastFrame()!
      .split('\n')
      .slice(1);
    expect(rows.slice(0, 2)).toEqual(['▸ STRATEGIC › CEO · turn 1 ·', '  HANDOFF_TO_AGENT → cfo']);
    expect(rows[2]).toBe('  The keeper tends a failing light on a');
    for (const row of rows) {
      expect(stringWidth(row), row).toBeLessThanOrEqual(40);
      expect(row, 'a wrapped row starts under the words, not with a space of its own').toMatch(/^(▸| {2}\S)/);
    }
    // Every word whole: the rows put back together are the words.
    expect(
      rows
        .slice(2)
        .map((r) => r.trim())
        .join(' '),
    ).toBe(text.trim());
    expect(render(<Transcript items={[item]} width={40} />).lastFrame()).toContain(rows[3]);
  });

  it('indents the rows a user line and a note wrap onto under their text, and a table row under its second column', () => {
    const user = render(<LogLine item={{ id: 'u', kind: 'user', label: 'You', text: 'make the lighthouse keeper older and the storms much worse in winter' }} width={40} />)
      .lastFrame()!
      .split('\n')
      .slice(1);
    expect(user).toEqual(['You › make the lighthouse keeper older', '      and the storms much worse in', '      winter']);
    const note = render(<LogLine item={{ id: 'n', kind: 'note', text: 'waiting for you: CEO declared the work complete; !approve to end', tone: 'warn', mark: '◂' }} width={40} />)
      .lastFrame()!
      .split('\n');
    expect(note).toEqual(['  ◂ waiting for you: CEO declared the', '    work complete; !approve to end']);
    const help = render(
      <LogLine item={{ id: 'h', kind: 'output', title: 'commands', lines: ['!handoff <persona>  give the turn to a persona now, cutting off the one answering'], tone: 'info' }} width={50} />,
    )
      .lastFrame()!
      .split('\n');
    expect(help.slice(3, 6).map((r) => r.replace(/^│ | *│$/g, ''))).toEqual([
      '!handoff <persona>  give the turn to a persona',
      '                    now, cutting off the one',
      '                    answering',
    ]);
    // A second column past the middle of a narrow terminal: its rows wrap four columns in, not in a thin column.
    const narrow = render(
      <LogLine
        item={{ id: 'h', kind: 'output', title: 'commands', lines: ['!approve                         approve the work or the pending transition at a gate and continue'], tone: 'info' }}
        width={60}
      />,
    )
      .lastFrame()!
      .split('\n');
    expect(narrow.slice(3, 5).map((r) => r.replace(/^│ | *│$/g, ''))).toEqual(['!approve                         approve the work or the', '    pending transition at a gate and continue']);
  });
});

describe('LiveTurn', () => {
  it('streams the active turn and keeps only the last lines', () => {
    const live = { turnId: 't1', persona: 'cmo', path: 'STRATEGIC.cmo', model: 'gpt-4o', attempt: 1, text: 'one\ntwo\nthree\nfour', startedAt: 1_000 };
    const frame = render(<LiveTurn live={live} def={def} width={80} maxLines={2} now={4_200} />).lastFrame()!;
    expect(frame).toContain('▸ STRATEGIC › CMO is answering… · gpt-4o · 3s');
    expect(frame).toContain('three');
    expect(frame).not.toContain('two');
    expect(tailLines('x'.repeat(25), 10, 5)).toEqual(['xxxxxxxxxx', 'xxxxxxxxxx', 'xxxxx']);
    expect(render(<LiveTurn live={null} def={def} width={80} maxLines={2} now={0} />).lastFrame()).toBe('');
  });

  it('wraps at word boundaries, and shows a spinner and the time waited before the first words', () => {
    expect(tailLines('the keeper tends a failing light on a stormy island', 20, 5)).toEqual(['the keeper tends a', 'failing light on a', 'stormy island']);
    const waiting = { turnId: 't1', persona: 'cmo', path: 'STRATEGIC.cmo', model: 'gpt-4o', attempt: 1, text: '', startedAt: 1_000 };
    expect(render(<LiveTurn live={waiting} def={def} width={100} maxLines={2} now={8_000} />).lastFrame()).toMatch(/is answering… · gpt-4o [⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] waiting for the first words · 7s/);
  });
});

describe('Arbitration', () => {
  it('shows every proposal with its score, the winner and why', () => {
    const c = (u: number, d: number, i: number) => ({ urgency: u, dependency: d, user_intent: i });
    const decision = arbitrate({
      from: 'game_designer',
      proposals: [
        { target: 'lead_engineer', source: 'agent', criteria: c(0.8, 0.9, 0.3), reason: '', proposer: 'game_designer' },
        { target: 'ceo', source: 'agent', criteria: c(0.9, 0.5, 0.8), reason: '', proposer: 'game_designer' },
        { target: 'art_director', source: 'agent', criteria: c(0.4, 0.6, 0.7), reason: '', proposer: 'game_designer' },
      ],
      roster: def.agents,
      weights: def.team!.arbiter.weights,
      blockingDependency: null,
    });
    const frame = render(<Arbitration rows={arbitrationRows({ from: 'CREATIVE.game_designer', decision }, def, 100)} />).lastFrame()!;
    expect(frame.replace(/\s+/g, ' ')).toBe('arbiter at CREATIVE › Game Designer: Lead Engineer 0.69 [agent] · CEO 0.71 [agent] ✓ · Art Director 0.57 [agent] — highest score (0.71 vs 0.69)');
  });
});

describe('Footer and InputLine', () => {
  it('shows turn, tokens, cost and memory', () => {
    // 15,400 tokens at $0.80 per million: $0.0123.
    const meter = new UsageMeter(new PriceTable({ m: { input: 0.8, output: 0.8 } }, 'test'));
    for (const promptTokens of [5_000, 5_000, 5_000]) meter.record('ceo', 'm', { promptTokens, completionTokens: 133 });
    const frame = render(<Footer turn={3} turnBudget={40} usage={sessionUsage(meter)} memory={{ pinned: ['a', 'b'], summaries: [{ decisions: [], discussions: [], pending: [] }] }} />).lastFrame();
    expect(frame).toBe('turn 3/40 · tokens 15k · cost $0.0123 · memory 1 summary, 2 pinned');
    expect(render(<Footer turn={0} turnBudget={40} usage={sessionUsage(new UsageMeter(), { free: true })} memory={null} />).lastFrame()).toBe(
      'turn 0/40 · tokens 0 · cost free (demo model) · memory off',
    );
  });

  it('shows the hint, completion candidates and the buffer', () => {
    const frame = render(<InputLine value="!handoff c" hint={hintFor(initialState(def, { id: 's' }))} candidates={['ceo', 'cfo']} />).lastFrame()!;
    expect(frame).toContain('ceo  cfo');
    expect(frame).toContain('Type a brief for the team and press Enter');
    expect(frame).toContain('› !handoff c');
  });
});

describe('Transcript window', () => {
  it('after letting printed items go (a new epoch), later items still print, and none prints twice', () => {
    const note = (id: string) => ({ id, kind: 'note' as const, text: `note ${id}`, tone: 'info' as const });
    const ui = render(<Transcript key={0} items={[note('a'), note('b')]} />);
    ui.rerender(<Transcript key={1} items={[note('c')]} />);
    ui.rerender(<Transcript key={1} items={[note('c'), note('d')]} />);
    const printed = ui.lastFrame() ?? '';
    for (const id of ['a', 'b', 'c', 'd']) expect(printed.split(`note ${id}`).length - 1, id).toBe(1);
  });
});

describe('Volatile', () => {
  it('draws its text in the columns it takes, beside other text', () => {
    const frame = render(
      <Box flexDirection="column">
        <Box>
          <Text>left</Text>
          <Volatile text=" · 12s" />
          <Text>|</Text>
        </Box>
        <Volatile text="  the keeper tends the light" width={30} />
      </Box>,
    ).lastFrame()!;
    expect(frame.split('\n')).toEqual(['left · 12s|', '  the keeper tends the light']);
  });
});
