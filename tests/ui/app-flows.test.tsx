import stringWidth from 'string-width';
import { afterEach, describe, expect, it } from 'vitest';
import { cleanup, render } from 'ink-testing-library';
import { App } from '../../src/ui/App.js';
import { namingCommand } from '../../src/cli/invocation.js';
import type { SessionKernel } from '../../src/kernel/session-kernel.js';
import { ScriptedModel, type ScriptEntry } from '../../src/llm/scripted-model.js';
import type { ChatModel } from '../../src/llm/chat-model.js';
import { AbortedError } from '../../src/llm/errors.js';
import type { TroupeSession } from '../../src/session/troupe-session.js';
import { studio, studioRunner } from '../helpers/team.js';
import { tick, until } from './wait.js';

const runners: TroupeSession[] = [];
afterEach(async () => {
  cleanup();
  for (const r of runners.splice(0)) await r.stop();
});

/** A step that streams its first words at once, then thinks until aborted. */
const streaming =
  (words: string): ScriptEntry =>
  (request) => {
    request.onDelta?.({ type: 'text', text: words });
    return { text: `${words} and more`, delayMs: 60_000 };
  };
const says = (text: string, directive: Record<string, unknown>): ScriptEntry => ({ text, directive });

async function mount(script: ScriptEntry[], options: { approval?: 'every'; columns?: number; rows?: number; hints?: (text: string) => string } = {}) {
  const team = studio();
  if (options.approval) team.def.team!.approval = options.approval;
  const model = new ScriptedModel(script);
  const { runner, events } = await studioRunner(model, { team });
  runners.push(runner);
  let quit = 0;
  const ui = render(<App session={runner} columns={options.columns ?? 100} rows={options.rows ?? 40} onQuit={() => (quit += 1)} {...(options.hints ? { hints: options.hints } : {})} />);
  await tick();
  const frame = () => ui.lastFrame() ?? '';
  const type = async (line: string) => {
    ui.stdin.write(`${line}\r`);
    await tick();
  };
  const see = (text: string | RegExp) =>
    until(
      () => (typeof text === 'string' ? frame().includes(text) : text.test(frame())),
      () => `${String(text)} in:\n${frame()}`,
    );
  return { runner, model, events, frame, type, see, quitCount: () => quit, stdin: ui.stdin };
}

describe('App flows', () => {
  it('keeps the live area under the terminal height and every row within its width while a long turn streams', async () => {
    const words = 'The keeper tends a failing light on a stormy island, and every choice spends the oil that is left. '.repeat(6);
    for (const [columns, rows] of [
      [60, 14],
      [80, 24],
      [40, 12],
    ] as const) {
      const ui = await mount([streaming(words)], { columns, rows });
      await ui.type('a lighthouse keeper game where the storms get worse every winter and the oil runs out');
      await ui.see('▸ CREATIVE › Creative Partner is');
      await ui.see('is left.');
      // A long line being typed meanwhile wraps too, within the same height.
      ui.stdin.write('and make the storms worse in every chapter of the game, so the oil runs out sooner each winter');
      await ui.see('winter');
      const all = ui.frame().split('\n');
      // The live area: from the header down (the printed transcript is above it).
      const live = all.slice(all.findIndex((l) => l.startsWith('troupe · ')));
      expect(live.length, `${columns}x${rows}:\n${live.join('\n')}`).toBeLessThanOrEqual(rows - 1);
      for (const row of all) expect(stringWidth(row), `${columns}: ${row}`).toBeLessThanOrEqual(columns);
      expect(live.at(-1)).toMatch(/^› ?$/);
      cleanup();
    }
  });

  it('takes the first line as the brief and shows the persona answering', async () => {
    const ui = await mount([says('A cozy concept.', { transition: 'RESPOND_TO_USER' })]);
    expect(ui.frame()).toContain('USER_INTERACTION › You -> next: CREATIVE › Creative Partner');
    expect(ui.frame()).toContain('Type a brief for the team');
    await ui.type('a lighthouse game');
    await ui.see('▸ CREATIVE › Creative Partner · turn 1 · RESPOND_TO_USER');
    expect(ui.frame()).toContain('Brief › a lighthouse game');
    expect(ui.frame()).toContain('A cozy concept.');
    expect(ui.frame()).toContain('Your turn: type a reply');
    expect(ui.runner.getSnapshot().brief).toBe('a lighthouse game');
  });

  it('shows a streaming turn and takes an interjection the active persona answers next', async () => {
    const ui = await mount([streaming('Thinking about tides'), says('Noted: no combat.', { transition: 'RESPOND_TO_USER' })]);
    await ui.type('a tide game');
    await ui.see('▸ CREATIVE › Creative Partner is answering… · test-model');
    await ui.see('Thinking about tides');
    await ui.type('no combat please');
    await ui.see('Noted: no combat.');
    expect(ui.frame()).toContain("Creative Partner's answer was cut off: user interjected");
    expect(ui.frame()).toContain('You › no combat please');
    expect(ui.model.calls[1]!.meta).toMatchObject({ persona: 'creative_partner', inbox: 'interjection' });
  });

  it('!handoff CEO mid-turn aborts the call and gives the CEO the turn, flagged user-requested', async () => {
    const ui = await mount([streaming('Sketching the concept'), streaming('CEO weighing in')]);
    await ui.type('a bee game');
    await ui.see('Sketching the concept');
    await ui.type('!handoff CEO');
    await ui.see(/STRATEGIC › CEO\s+·\s+CEO is answering/);
    await ui.see('CEO weighing in');
    expect(ui.frame()).toContain('arbiter at CREATIVE › Creative Partner: CEO 1.00 [user] ✓');
    // The CEO holds the turn; a visit counts once a turn is answered, so the cut-off Creative Partner has none.
    expect(ui.frame()).toMatch(/STRATEGIC\s+ CEO ▸ /);
    expect(ui.frame()).toMatch(/CREATIVE\s+Creative Partner\s+Game Designer/);
    expect(ui.model.calls[1]!.meta).toMatchObject({ persona: 'ceo', inbox: 'user_requested' });
  });

  it('!rework too expensive sends the work back to its author with the reason', async () => {
    const ui = await mount([
      says('Concept with online co-op.', { transition: 'HANDOFF_TO_AGENT', next_agent: 'game_designer' }),
      streaming('Designing co-op'),
      says('Cut co-op.', { transition: 'RESPOND_TO_USER' }),
    ]);
    await ui.type('a co-op game');
    await ui.see('Designing co-op');
    await ui.type('!rework too expensive');
    await ui.see('Cut co-op.');
    expect(ui.frame()).toContain("you sent back Creative Partner's work: too expensive");
    expect(ui.model.calls[2]!.meta).toMatchObject({ persona: 'creative_partner', inbox: 'rework' });
    expect(ui.model.calls[2]!.messages.map((m) => m.content).join('\n')).toContain('too expensive');
  });

  it('pauses at an approval gate showing the pending transition; !approve takes it', async () => {
    const ui = await mount([says('Over to the designer.', { transition: 'HANDOFF_TO_AGENT', next_agent: 'game_designer' }), says('Loop designed.', { transition: 'RESPOND_TO_USER' })], {
      approval: 'every',
    });
    await ui.type('a gated game');
    await ui.see('CREATIVE › Creative Partner -> pending: CREATIVE › Game Designer');
    expect(ui.frame()).toContain('Approval gate: !approve to take it');
    expect(ui.model.calls).toHaveLength(1);
    await ui.type('!approve');
    await ui.see('Loop designed.');
    expect(ui.frame()).toContain("you approved Creative Partner's work");
    expect(ui.model.calls[1]!.meta.persona).toBe('game_designer');
  });

  it('!simple then !fsm switches the mode shown in the header', async () => {
    const ui = await mount([]);
    await ui.type('!simple');
    await ui.see('troupe · V7 Studio · SIMPLE');
    expect(ui.frame()).toContain('mode is now SIMPLE');
    await ui.type('!fsm');
    await ui.see('troupe · V7 Studio · FSM');
    expect(ui.frame()).toContain('mode is now FSM');
    expect(ui.runner.getSnapshot().mode).toBe('fsm');
  });

  it('a failed turn leaves no "is answering…" on screen', async () => {
    const failing: ScriptEntry = (request) => {
      request.onDelta?.({ type: 'text', text: 'Half an ans' });
      return { text: '', error: new Error('the server closed the stream') };
    };
    const ui = await mount([failing]);
    await ui.type('a lighthouse game');
    await ui.see(/turn failed/);
    expect(ui.frame()).not.toContain('is answering…');
    expect(ui.frame()).not.toContain('waiting for the first words');
  });

  it('the live line of the offline demo names the demo model, not the tier model id it never calls', async () => {
    // Like the demo (offline and free), but it thinks until aborted, so the live line stays on screen.
    const demo: ChatModel = {
      label: 'demo model (offline)',
      offline: true,
      free: true,
      generate: (request) => new Promise((_, reject) => request.signal?.addEventListener('abort', () => reject(new AbortedError('aborted')))),
    };
    const { runner } = await studioRunner(demo, { env: { TROUPE_MODEL: 'gpt-4o' } });
    runners.push(runner);
    const ui = render(<App session={runner} columns={100} rows={40} />);
    await tick();
    ui.stdin.write('a lighthouse game\r');
    await until(
      () => (ui.lastFrame() ?? '').includes('is answering…'),
      () => ui.lastFrame() ?? '',
    );
    expect(ui.lastFrame()).toContain('is answering… · demo model');
    expect(ui.lastFrame()).not.toContain('gpt-4o');
  });

  it('in simple mode the state line shows the pipeline stage', async () => {
    const ui = await mount([says('Ideas.', { transition: 'RESPOND_TO_USER' })]);
    await ui.type('!simple');
    await ui.type('a lighthouse game');
    await ui.see('▸ CREATIVE › Creative Partner · turn 1');
    await ui.see(/stage Ideation \(1\/3\)/);
  });

  it('answers an unknown persona with the known ones, and unknown commands with !help', async () => {
    const ui = await mount([]);
    await ui.type('!handoff Bob');
    await ui.see('unknown persona "Bob"; known: ceo (CEO), cfo (CFO)');
    await ui.type('!dance');
    await ui.see('unknown command "!dance" — type !help for the list');
    await ui.type('!help');
    await ui.see('!call_agent <persona> [message]');
    expect(ui.runner.getSnapshot().status).toBe('idle');
  });

  it('completes persona names with Tab', async () => {
    const ui = await mount([]);
    ui.stdin.write('!handoff lead');
    await tick();
    ui.stdin.write('\t');
    await ui.see('› !handoff lead_engineer');
  });

  it('!quit leaves the UI with the session saved for resume', async () => {
    const ui = await mount([streaming('Working')]);
    await ui.type('a brief');
    await ui.see('Working');
    await ui.type('!quit');
    await until(
      () => ui.quitCount() === 1,
      () => 'onQuit',
    );
    expect(ui.runner.getSnapshot().status).toBe('running');
    expect(ui.frame()).toContain('session paused: user left — the session is saved');
  });

  it('hides the state tree on narrow terminals', async () => {
    const wide = await mount([]);
    expect(wide.frame()).toMatch(/TECHNICAL\s+Lead Engineer/);
    cleanup();
    const narrow = await mount([], { columns: 60 });
    expect(narrow.frame()).toContain('USER_INTERACTION › You');
    expect(narrow.frame()).not.toMatch(/TECHNICAL\s+Lead Engineer/);
  });

  it("names the command as the user started troupe in troupe's own lines (a command's output, an error), never in an agent's words", async () => {
    const ui = await mount([says('Next, type troupe run "a new brief" in your shell.', { transition: 'RESPOND_TO_USER' })], { hints: (text) => namingCommand(text, 'npm start --') });
    await ui.type('a lighthouse game');
    await ui.see('Next, type troupe run "a new brief"');
    await ui.type('!help');
    await ui.see('resume one with: npm start -- resume <id>');
    (ui.runner as unknown as { parts: { kernel: SessionKernel } }).parts.kernel.stopSaving(new Error('disk full'));
    await ui.see('continue it with npm start -- resume s-test');
    expect(ui.frame()).not.toContain('troupe resume');
    // Stopped by its failed save: its stop says so (the suite's afterEach stops the others).
    runners.splice(runners.indexOf(ui.runner), 1);
    await expect(ui.runner.stop()).rejects.toThrow('disk full');
  });
});
