import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPriceTable, parsePriceTable, PriceTable } from '../../src/usage/price-table.js';
import { UserError } from '../../src/llm/errors.js';

describe('PriceTable', () => {
  const table = new PriceTable({ 'gpt-4o': { input: 2.5, output: 10 }, 'gpt-4o-mini': { input: 0.15, output: 0.6 } }, 'test');

  it('prices exact ids and dated snapshots, and nothing else', () => {
    expect(table.priceOf('gpt-4o')).toEqual({ input: 2.5, output: 10 });
    expect(table.priceOf('gpt-4o-2024-08-06')).toEqual({ input: 2.5, output: 10 });
    expect(table.priceOf('gpt-4o-mini-2024-07-18')).toEqual({ input: 0.15, output: 0.6 });
    expect(table.priceOf('gpt-4o-audio-preview')).toBeNull();
    expect(table.priceOf('llama3')).toBeNull();
  });

  it('computes cost per 1M tokens, null for an unknown model', () => {
    expect(table.cost('gpt-4o', { promptTokens: 1_000_000, completionTokens: 500_000 })).toBe(7.5);
    expect(table.cost('mystery', { promptTokens: 10, completionTokens: 10 })).toBeNull();
  });

  it('the shipped pricing.json loads and prices common models', () => {
    const shipped = loadPriceTable({});
    for (const id of ['gpt-4o', 'gpt-4o-mini', 'gpt-4.1', 'gpt-4.1-mini', 'o3-mini']) expect(shipped.priceOf(id), id).not.toBeNull();
    expect(shipped.currency).toBe('USD');
  });

  it('TROUPE_PRICES points at another file; bad files are one-line errors naming the file and field', () => {
    const dir = mkdtempSync(join(tmpdir(), 'troupe-prices-'));
    const good = join(dir, 'prices.json');
    writeFileSync(good, JSON.stringify({ models: { 'local-llm': { input: 0, output: 0 } } }));
    expect(loadPriceTable({ TROUPE_PRICES: good }).priceOf('local-llm')).toEqual({ input: 0, output: 0 });
    expect(() => loadPriceTable({ TROUPE_PRICES: join(dir, 'missing.json') })).toThrow(/^cannot read the price table .*missing\.json — check TROUPE_PRICES$/);
    expect(() => parsePriceTable('{ nope', 'p.json')).toThrow(UserError);
    expect(() => parsePriceTable('{ nope', 'p.json')).toThrow(/^p\.json: not valid JSON/);
    expect(() => parsePriceTable(JSON.stringify({ models: { x: { input: -1, output: 2 } } }), 'p.json')).toThrow(/^p\.json: models\.x\.input: .* — each model needs/);
  });
});
