import { describe, expect, it } from 'vitest';
import { parseLine, isCommand } from '../../src/commands/parse.js';
import { helpLines, COMMANDS } from '../../src/commands/catalog.js';
import { studio } from '../helpers/team.js';

const def = studio().def;

describe('parseLine', () => {
  it('treats plain text as text and blank lines as empty', () => {
    expect(parseLine('  a game about bees ', def)).toEqual({ kind: 'text', text: 'a game about bees' });
    expect(parseLine('   ', def)).toEqual({ kind: 'empty' });
    expect(isCommand('hello !handoff')).toBe(false);
  });

  it('maps every engine command, with ! or /', () => {
    expect(parseLine('!approve', def)).toMatchObject({ kind: 'engine', input: { type: 'user_approve' } });
    expect(parseLine('/rework too expensive', def)).toMatchObject({ kind: 'engine', input: { type: 'user_rework', reason: 'too expensive' } });
    expect(parseLine('!rework', def)).toMatchObject({ input: { type: 'user_rework', reason: '' } });
    expect(parseLine('!continue', def)).toMatchObject({ input: { type: 'user_continue' } });
    expect(parseLine('!simple', def)).toMatchObject({ input: { type: 'user_mode', mode: 'simple' } });
    expect(parseLine('/FSM', def)).toMatchObject({ input: { type: 'user_mode', mode: 'fsm' } });
    expect(parseLine('!switch_to technical', def)).toMatchObject({ input: { type: 'user_switch_major', major: 'TECHNICAL' } });
  });

  it('resolves personas by id or display name, case-insensitive', () => {
    expect(parseLine('!handoff CEO', def)).toMatchObject({ input: { type: 'user_handoff', target: 'ceo' } });
    expect(parseLine('!handoff game designer', def)).toMatchObject({ input: { type: 'user_handoff', target: 'game_designer' } });
    expect(parseLine('/handoff Lead_Engineer', def)).toMatchObject({ input: { type: 'user_handoff', target: 'lead_engineer' } });
  });

  it('splits !call_agent into the longest persona name and the message', () => {
    expect(parseLine('!call_agent Art Director is the palette too dark?', def)).toMatchObject({
      input: { type: 'user_call_agent', target: 'art_director', message: 'is the palette too dark?' },
    });
    expect(parseLine('!call_agent cfo', def)).toMatchObject({ input: { type: 'user_call_agent', target: 'cfo', message: '' } });
  });

  it('names unknown personas, majors and commands with what is known', () => {
    const bob = parseLine('!handoff Bob', def);
    expect(bob.kind).toBe('error');
    expect(bob.kind === 'error' && bob.message).toMatch(/^unknown persona "Bob"; known: .*ceo \(CEO\).*lead_engineer/);
    expect(parseLine('!handoff', def)).toMatchObject({ kind: 'error', message: expect.stringMatching(/^usage: !handoff <persona>/) });
    expect(parseLine('!switch_to SALES', def)).toMatchObject({ kind: 'error', message: 'unknown major "SALES"; known: STRATEGIC, CREATIVE, TECHNICAL' });
    expect(parseLine('!dance', def)).toMatchObject({ kind: 'error', message: 'unknown command "!dance" — type !help for the list' });
    expect(parseLine('!aprove', def)).toMatchObject({ kind: 'error', message: 'unknown command "!aprove" — did you mean !approve? — type !help for the list' });
    expect(parseLine('/hadnoff ceo', def)).toMatchObject({ kind: 'error', message: 'unknown command "/hadnoff" — did you mean /handoff? — type !help for the list' });
  });

  it('keeps inspection, quit and workflow commands for the UI', () => {
    for (const name of ['status', 'history', 'memory', 'cost', 'help'] as const) expect(parseLine(`!${name}`, def)).toEqual({ kind: 'inspect', name });
    expect(parseLine('!quit', def)).toEqual({ kind: 'quit' });
    expect(parseLine('/exit', def)).toEqual({ kind: 'quit' });
    expect(parseLine('/workflow review the code', def)).toEqual({ kind: 'workflow', name: 'review', input: 'the code' });
  });

  it('lists every command in the help text', () => {
    const help = helpLines().join('\n');
    for (const c of COMMANDS) expect(help).toContain(c.usage);
  });
});
