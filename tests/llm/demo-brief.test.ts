import { describe, expect, it } from 'vitest';
import { DemoModel, quotedBrief } from '../../src/llm/demo-model.js';

const LONG = 'A cozy lighthouse-keeping game where every choice spends light, set on a storm coast with a ferry town that depends on the keeper';

describe('the demo quotes a long brief cut at a word, marked with …', () => {
  it('keeps a short brief whole and folds its whitespace', () => {
    expect(quotedBrief('  A cozy\n lighthouse   game ', 80)).toBe('A cozy lighthouse game');
  });

  it('cuts a long brief at a word boundary, never mid-word, with an ellipsis', () => {
    const quoted = quotedBrief(LONG, 80);
    expect(quoted.length).toBeLessThanOrEqual(80);
    expect(quoted.endsWith('…')).toBe(true);
    expect(LONG.startsWith(quoted.slice(0, -1))).toBe(true);
    expect(LONG[quoted.length - 1]).toBe(' ');
  });

  it('a word longer than the space is cut with an ellipsis too', () => {
    expect(quotedBrief('x'.repeat(200), 80)).toBe(`${'x'.repeat(79)}…`);
  });

  it("the demo's first line quotes the long brief that way", async () => {
    const reply = await new DemoModel().generate({
      messages: [{ role: 'user', content: LONG }],
      meta: { persona: 'CEO', brief: LONG },
    } as never);
    expect(reply.text).toContain(`"${quotedBrief(LONG, 80)}"`);
    expect(reply.text).not.toContain('ferry town');
  });
});
