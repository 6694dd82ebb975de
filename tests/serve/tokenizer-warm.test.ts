import { describe, expect, it } from 'vitest';
import { DemoModel } from '../../src/llm/demo-model.js';
import { tokenizerLoading, tokenizerReady } from '../../src/memory/tokens.js';
import { SessionHost } from '../../src/serve/host.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { REPO_ROOT, studio } from '../helpers/team.js';

describe('troupe serve loads the tokenizer as it starts', () => {
  it('before any session exists, in the background: no session turn builds it (it held the loop 0.4-0.5 s mid-turn)', async () => {
    expect(tokenizerReady()).toBe(false);
    new SessionHost({ store: new MemoryStore(), team: studio(), teamDir: REPO_ROOT, env: {}, maxSessions: 10, model: () => new DemoModel() });
    // Not at once: the constructor's caller (the server starting) goes on first.
    expect(tokenizerReady()).toBe(false);
    expect(tokenizerLoading()).not.toBeNull();
    await tokenizerLoading();
    expect(tokenizerReady()).toBe(true);
  });
});
