import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DIRECTIVE_TOOL_NAME } from '../../src/directive/schema.js';
import type { ChatModel, ChatRequest, ChatResponse } from '../../src/llm/chat-model.js';
import { openSession } from '../../src/session/open-session.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { REPO_ROOT, studio } from '../helpers/team.js';

const dist = (path: string) => pathToFileURL(join(REPO_ROOT, 'dist', path)).href;

describe('cold start (issue 24, item 4)', () => {
  it('no document rewrite sits between start and the first model request; the move to running is written with the next step', async () => {
    const docs: string[] = [];
    let writesAtFirstCall = -1;
    const store = new MemoryStore((_id, copy) => {
      if (docs.at(-1) !== copy.doc) docs.push(copy.doc);
    });
    const model: ChatModel = {
      label: 'first call',
      async generate(request: ChatRequest): Promise<ChatResponse> {
        if (writesAtFirstCall < 0) writesAtFirstCall = docs.length;
        return {
          text: 'Done.',
          toolCalls: [{ name: DIRECTIVE_TOOL_NAME, arguments: JSON.stringify({ transition: 'RESPOND_TO_USER' }) }],
          usage: null,
          finishReason: 'tool_calls',
          model: request.model,
        };
      },
    };
    const session = await openSession({ team: studio(), model, store, id: 'cold', env: { TROUPE_MODEL: 'test-model' }, memory: false });
    const created = docs.length;
    session.start('A lighthouse game');
    await session.settled();
    await session.stop();
    expect(writesAtFirstCall).toBe(created);
    // The pause after the answer is written, and the document ends where the journal does.
    const last = JSON.parse(docs.at(-1)!) as { checkpoint: { snapshot: { status: string } } };
    expect(last.checkpoint.snapshot.status).toBe('awaiting_user');
  });

  it('a fresh process builds its first prompt and records the first answer without the tokenizer, then loads it; the prompt is the one a counted build makes', () => {
    const out = execFileSync(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        `
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const loaded = () => Object.keys(require.cache).some((k) => k.includes('gpt-tokenizer'));
const { openSession } = await import('${dist('session/open-session.js')}');
const { tokenizerReady, loadTokenizer } = await import('${dist('memory/tokens.js')}');
let first = null;
let prompt = null;
const model = {
  label: 'recorder',
  async generate(request) {
    if (first === null) { first = tokenizerReady(); prompt = request.messages; }
    return { text: 'The keeper lights the lamp.', toolCalls: [{ name: 'handoff_directive', arguments: JSON.stringify({ transition: 'RESPOND_TO_USER' }) }], usage: null, finishReason: 'tool_calls', model: request.model };
  },
};
const session = await openSession({ model, memory: true, env: { TROUPE_MODEL: 'test-model' } });
session.start('A lighthouse game');
await session.settled();
console.log('first call, tokenizer ready: ' + first);
console.log('after the first answer, loaded at once: ' + loaded());
await loadTokenizer();
console.log('later: ' + tokenizerReady());
// The same call built again now that counting is possible.
const s = session.getSnapshot();
const call = { turnId: 'again', persona: 'creative_partner', path: 'CREATIVE.creative_partner', attempt: 1, inbox: { kind: 'brief', text: 'A lighthouse game' } };
const { teamTurns } = await import('${dist('team/turns.js')}');
const { MemoryPromptBuilder } = await import('${dist('memory/memory-prompt-builder.js')}');
const { Memory } = await import('${dist('memory/memory.js')}');
const memory = new Memory({ config: session.team.loaded.team.memory, nameOf: (id) => id });
memory.recordUser('A lighthouse game');
const builder = new MemoryPromptBuilder(memory, { budget: session.team.loaded.team.memory.prompt_budget });
const persona = session.def.agentIndex.get('creative_partner');
const again = builder.build({ def: session.def, session: { ...s, brief: 'A lighthouse game' }, call, persona, personaPrompt: session.team.loaded.prompts.creative_partner });
console.log('same prompt: ' + (JSON.stringify(again) === JSON.stringify(prompt)));
console.log('turn counted: ' + (session.memory.recent[0].tokens > 0));
await session.stop();
`,
      ],
      { encoding: 'utf8' },
    );
    expect(out.trim().split('\n')).toEqual(['first call, tokenizer ready: false', 'after the first answer, loaded at once: false', 'later: true', 'same prompt: true', 'turn counted: true']);
  });
});
