import { describe, expect, it } from 'vitest';
import { MemorySchema } from '../../src/config/team-schema.js';
import { Memory } from '../../src/memory/memory.js';
import { MemoryPromptBuilder } from '../../src/memory/memory-prompt-builder.js';
import { input, summariser } from './studio-calls.js';

const PERSONAS = ['ceo', 'cfo', 'cmo', 'game_designer'];
const config = MemorySchema.parse({ compress_every: 4, keep_recent: 2, max_summaries: 4 });

/** One scripted turn: a message, its directive (a key decision every other turn), an approval or a rework request, and a user line now and then. */
function turn(memory: Memory, n: number): void {
  const persona = PERSONAS[(n * 3 + (n >> 2)) % PERSONAS.length]!;
  memory.recordAgent({ turnId: `t${n}`, persona, text: `Turn ${n}: the tide chart ${'and the lamp '.repeat(n % 3)}at night.`, turn: n });
  memory.recordDirective({ turnId: `t${n}`, persona, directive: { transition: 'HANDOFF_TO_AGENT', next_agent: 'cfo', ...(n % 2 ? { key_decisions: [`decision ${n}: lamp colour ${n}`, ' '] } : {}) } });
  memory.recordApproval({ by: persona, of: n % 5 ? 'cfo' : 'brief', status: n % 6 ? 'APPROVED' : 'REQUEST_REWORK', reason: `reason ${n}` });
  if (n % 9 === 0) memory.recordUser(`A user line at ${n}`);
}

describe('memory stored and resumed', () => {
  it('rebuilds every persona prompt byte for byte after a round trip through its stored state, at every turn of a session with summaries, merges and pins', async () => {
    const memory = new Memory({ config, summariser });
    memory.recordUser('A lighthouse keeper game');
    const builder = new MemoryPromptBuilder(memory, { budget: 1_000_000 });
    for (let n = 1; n <= 90; n++) {
      turn(memory, n);
      if (n % 2 === 0) await memory.idle();
      const stored = JSON.parse(JSON.stringify(memory.toJSON())) as unknown;
      const resumed = new MemoryPromptBuilder(Memory.fromJSON(stored, { config, summariser }), { budget: 1_000_000 });
      for (const persona of PERSONAS) {
        const call = input(persona, { from: 'cfo', text: `Something new at ${n}` });
        expect(JSON.stringify(resumed.build(call)), `turn ${n}, ${persona}`).toBe(JSON.stringify(builder.build(call)));
      }
    }
  });

  it('stores the same bytes as before: raw turns, pins and summaries keep their fields and key order', async () => {
    const memory = new Memory({ config: MemorySchema.parse({ compress_every: 3, keep_recent: 1, max_summaries: 2 }), summariser });
    memory.recordUser('A lighthouse keeper game');
    for (let n = 1; n <= 10; n++) {
      turn(memory, n);
      await memory.idle();
    }
    expect(JSON.stringify(memory.toJSON())).toBe(STORED);
  });
});

// The stored state of the script above as main stored it before the record paths were rewritten (2ea0435).
const STORED =
  '{"version":1,"brief":"A lighthouse keeper game","nextId":15,"turn":10,"turnsSeen":11,"sinceCompression":1,"retryAt":0,"failures":0,"raw":[{"turn":9,"author":"user","type":"general","text":"A user line at 9","id":11,"tokens":6},{"turn":10,"author":"ceo","type":"general","text":"Turn 10: the tide chart and the lamp at night.","turnId":"t10","id":14,"tokens":13}],"pinned":[{"kind":"decision","turn":1,"by":"game_designer","text":"decision 1: lamp colour 1","repeats":1},{"kind":"approval","turn":1,"by":"game_designer","of":"cfo","text":"","repeats":1},{"kind":"approval","turn":2,"by":"cmo","of":"cfo","text":"","repeats":3},{"kind":"decision","turn":3,"by":"cfo","text":"decision 3: lamp colour 3","repeats":1},{"kind":"approval","turn":3,"by":"cfo","of":"cfo","text":"","repeats":3},{"kind":"decision","turn":5,"by":"ceo","text":"decision 5: lamp colour 5","repeats":1},{"kind":"approval","turn":5,"by":"ceo","text":"","repeats":2},{"kind":"rejection","turn":6,"by":"game_designer","of":"cfo","text":"reason 6","repeats":1},{"kind":"decision","turn":7,"by":"cmo","text":"decision 7: lamp colour 7","repeats":1},{"kind":"decision","turn":9,"by":"cfo","text":"decision 9: lamp colour 9","repeats":1}],"summaries":[{"decisions":["merged 2 summaries"],"discussions":[],"pending":["playtest"],"id":13,"first":1,"last":5,"count":5,"parts":2,"tokens":19},{"decisions":["segment of 4 turns from 6"],"discussions":["the tide chart"],"pending":[],"id":12,"first":6,"last":9,"count":4,"parts":1,"tokens":25}],"settled":10}';
