import { describe, expect, it } from 'vitest';
import { DemoModel } from '../../src/llm/demo-model.js';
import { payloads, studioRunner } from '../helpers/team.js';
import { transcriptOf } from '../../src/memory/transcript.js';
import * as troupe from '../../src/index.js';

describe('the offline demo model', () => {
  it('plays a whole session by itself: approvals, a rework, cross-major handoffs, a detour, an end', async () => {
    const { runner, events } = await studioRunner(new DemoModel());
    runner.start('A cozy lighthouse game');
    await runner.settled();
    const s = runner.getSnapshot();
    expect(s.status).toBe('awaiting_user');
    expect(s.awaiting?.code).toBe('complete');
    const approvals = payloads(events, 'approval');
    expect(approvals.filter((a) => a.status === 'APPROVED').length).toBeGreaterThanOrEqual(3);
    expect(approvals.some((a) => a.status === 'REQUEST_REWORK')).toBe(true);
    const majors = new Set(events.filter((e) => e.type === 'major_entered').map((e) => (e as { major: string }).major));
    expect([...majors].sort()).toEqual(['CREATIVE', 'STRATEGIC', 'TECHNICAL', 'USER_INTERACTION']);
    const transitions = payloads(events, 'transition');
    expect(transitions.some((t) => t.kind === 'rule')).toBe(true);
    expect(transitions.some((t) => t.kind === 'detour_return')).toBe(true);
    // In character, about the brief.
    expect(transcriptOf(events).find((t) => t.persona === 'creative_partner')?.text).toContain('A cozy lighthouse game');
    runner.send({ type: 'user_approve' });
    expect(runner.getSnapshot().endReason).toBe("completed: CEO's result approved by the user");
  });

  it('answers the user in character when steered', async () => {
    const { runner, events } = await studioRunner(new DemoModel());
    runner.start('A racing game');
    await runner.settled();
    runner.send({ type: 'user_handoff', target: 'art director' });
    await runner.settled();
    expect(transcriptOf(events).at(-1)?.text).toBe(
      'Art Director here. You brought me in directly on "A racing game": a limited palette and one strong silhouette rule keep the art cost predictable. (The demo script is played through: the team reached its go decision. Set OPENAI_API_KEY to go on with a real model.)',
    );
    expect(runner.getSnapshot().awaiting?.code).toBe('respond_to_user');
    runner.send({ type: 'user_message', text: 'keep it neon' });
    await runner.settled();
    expect(transcriptOf(events).at(-1)?.text).toMatch(/^Art Director here\. Noted: "keep it neon"\. On "A racing game", a limited palette/);
  });
});

describe('library exports', () => {
  it('exposes sessions, the engine, arbiter, schemas and model interface', () => {
    for (const name of [
      'openSession',
      'step',
      'initialState',
      'compileTeam',
      'arbitrate',
      'DirectiveSchema',
      'PersonaSchema',
      'TeamSchema',
      'DemoModel',
      'OpenAIChatModel',
      'openTeam',
      'LowdbStore',
      'MemoryStore',
    ]) {
      expect(typeof (troupe as Record<string, unknown>)[name], name).not.toBe('undefined');
    }
  });
});
