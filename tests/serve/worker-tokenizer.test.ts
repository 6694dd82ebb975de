import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DemoModel } from '../../src/llm/demo-model.js';
import { tokenizerLoading, tokenizerReady } from '../../src/memory/tokens.js';
import { startWorker } from '../../src/serve/restate/worker.js';
import { loadPriceTable } from '../../src/usage/price-table.js';
import { studio } from '../helpers/team.js';

describe('a Restate worker loads the tokenizer as it starts', () => {
  it('once listening, in the background, before any session is invoked (no Restate server needed)', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'troupe-worker-tok-'));
    expect(tokenizerReady()).toBe(false);
    const worker = await startWorker({ team: studio(), model: new DemoModel(), prices: loadPriceTable({}), env: {}, dataDir, workflows: null, log: () => {}, port: 0, host: '127.0.0.1' });
    try {
      expect(tokenizerLoading()).not.toBeNull();
      await tokenizerLoading();
      expect(tokenizerReady()).toBe(true);
    } finally {
      await worker.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
