import { describe, expect, it } from 'vitest';
import { MemorySchema } from '../../src/config/team-schema.js';
import { TroupeBus } from '../../src/kernel/bus.js';
import { attachMemory } from '../../src/memory/attach-memory.js';
import { event, type EngineEvent } from '../../src/engine/event-map.js';
import { ScriptedModel } from '../../src/llm/scripted-model.js';
import { studio } from '../helpers/team.js';

const team = studio();
const models = { base: 'base-x', smart: 'smart-x', fast: 'fast-x' };

/** Stamps and delivers an event, as a session publishes one. */
const publishOn = (bus: TroupeBus) => (e: EngineEvent) => bus.deliver(bus.stamp(e));

function say(bus: TroupeBus, n: number, persona: string, keys: string[] = []): void {
  publishOn(bus)(event('agent_message', { turn_id: `t${n}`, path: `X.${persona}`, persona, text: `turn ${n} words`, turn: n }));
  publishOn(bus)(event('directive', { turn_id: `t${n}`, path: `X.${persona}`, persona, directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'ceo', key_decisions: keys }, source: 'tool' }));
}

describe('attachMemory', () => {
  it('summarises with the fast tier model id and publishes usage and memory_compressed on the bus', async () => {
    const bus = new TroupeBus('s');
    const seen: string[] = [];
    bus.on('*', (e) => seen.push(e.type));
    const model = new ScriptedModel([{ text: '{"decisions": ["d"]}', usage: { promptTokens: 10, completionTokens: 2 } }]);
    const { memory } = attachMemory({ bus, publish: publishOn(bus), team: { memory: MemorySchema.parse({ compress_every: 3, keep_recent: 1 }), models }, model, def: team.def, env: {} });
    publishOn(bus)(event('user_input', { text: 'the brief' }));
    for (let n = 1; n <= 3; n++) say(bus, n, 'cfo');
    await memory.idle();
    expect(model.calls[0]!.model).toBe('fast-x');
    expect(model.calls[0]!.messages[1]!.content).toContain('- [turn 1] CFO (general): turn 1 words');
    expect(seen.filter((t) => t === 'usage' || t === 'memory_compressed')).toEqual(['usage', 'memory_compressed']);
    expect(memory.brief).toBe('the brief');
  });

  it('restores from toJSON data and stops listening after detach', () => {
    const bus = new TroupeBus('s');
    const config = { memory: MemorySchema.parse({}), models };
    const first = attachMemory({ bus, publish: publishOn(bus), team: config, model: new ScriptedModel([]), def: team.def });
    say(bus, 1, 'ceo', ['Ship in spring']);
    publishOn(bus)(event('approval', { by: 'ceo', of: 'cfo', status: 'APPROVED' }));
    first.detach();
    say(bus, 2, 'cfo', ['Not recorded']);
    const saved = JSON.stringify(first.memory.toJSON());
    const second = attachMemory({ bus: new TroupeBus('s2'), publish: () => {}, team: config, model: new ScriptedModel([]), def: team.def, state: JSON.parse(saved) });
    expect(second.memory.snapshot().pinned).toEqual(['[turn 1] CEO: Ship in spring', "[turn 1] CEO approved CFO's work"]);
    expect(second.memory.recent).toHaveLength(1);
  });
});
