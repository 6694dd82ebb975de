import { describe, expect, it } from 'vitest';
import { paced } from '../../src/cli/models.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import { ScriptedModel } from '../../src/llm/scripted-model.js';

describe('paced', () => {
  it('paces only the free offline demo, keeping its flags so the meter never prices it', () => {
    const demo = paced(new DemoModel(), { TROUPE_DEMO_PACE_MS: '5' });
    expect(demo).not.toBeInstanceOf(DemoModel);
    expect(demo.free).toBe(true);
    expect(demo.offline).toBe(true);
    expect(paced(new DemoModel(), { TROUPE_DEMO_PACE_MS: '0' })).toBeInstanceOf(DemoModel);
    const scripted = new ScriptedModel([]);
    expect(paced(scripted, {})).toBe(scripted);
  });
});
