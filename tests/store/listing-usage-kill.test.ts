import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import { foldStoredTail } from '../../src/session/stored-tail.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import type { SessionDocument } from '../../src/store/session-file.js';
import type { StoredEntry } from '../../src/store/store.js';
import { countTransitions } from '../../src/warming/transitions.js';
import { cleanEnv, runCli } from '../helpers/cli.js';
import { runUntilWaiting } from './support.js';
import { studio } from '../helpers/team.js';

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
});

const usageOf = (events: readonly TroupeEvent[]) => {
  const used = events.flatMap((e) => (e.type === 'usage' ? [e] : []));
  return { calls: used.length, tokens: used.reduce((n, e) => n + e.prompt_tokens + e.completion_tokens, 0) };
};

describe('a session killed before its next checkpoint lists its usage and transitions as its journal ends', () => {
  it('troupe sessions shows the tokens of every call the journal holds, and the listing learns every transition, not the checkpoint’s', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'troupe-usagekill-'));
    dirs.push(dataDir);
    const id = 'usagekill';
    expect(await runUntilWaiting(dataDir, id)).toBe('WAITING awaiting_user');

    const store = new LowdbStore(dataDir, { foldTail: async (doc, tail) => foldStoredTail(doc, tail) });
    const read = await store.read(id);
    const all = usageOf(read.events);
    const doc = JSON.parse(readFileSync(store.pathOf(id), 'utf8')) as SessionDocument;
    // The checkpoint is the one taken at creation (the journal is under 32 lines, and the child's clock never moves): it holds fewer calls than the journal.
    const saved = (doc.checkpoint.usage as { session: { calls: number; promptTokens: number; completionTokens: number } } | null)?.session ?? { calls: 0, promptTokens: 0, completionTokens: 0 };
    expect(saved.calls).toBeLessThan(all.calls);
    const table = countTransitions(studio().def, read.events).toJSON();
    expect(JSON.stringify(doc.checkpoint.transitions)).not.toBe(JSON.stringify(table));

    const entries = await store.list();
    const entry = entries.find((e): e is Extract<StoredEntry, { listing: unknown }> => e.id === id && 'listing' in e)!;
    expect(entry.listing.status).toBe('awaiting_user');
    expect(entry.listing.tokens).toBe(all.tokens);
    // The demo model has no price: its calls are counted, their cost unknown.
    expect(entry.listing.cost).toBeNull();
    expect(entry.listing.transitions).toEqual(table);

    // A cache written before usage was folded (index version 1, the same document and journal) is made again.
    const indexPath = join(dataDir, 'sessions', 'index.json');
    const index = JSON.parse(readFileSync(indexPath, 'utf8'));
    writeFileSync(
      indexPath,
      JSON.stringify({ ...index, version: 1, sessions: { [id]: { ...index.sessions[id], listing: { ...index.sessions[id].listing, tokens: saved.promptTokens + saved.completionTokens } } } }),
    );
    const again = (await store.list()).find((e): e is Extract<StoredEntry, { listing: unknown }> => e.id === id && 'listing' in e)!;
    expect(again.listing.tokens).toBe(all.tokens);

    // The CLI's own store folds the same way: its listing has every call's tokens (a fresh cache: the index is the store's above);
    // its row says what they cost: nothing, on the demo model.
    rmSync(join(dataDir, 'sessions', 'index.json'));
    const listed = await runCli(['sessions'], cleanEnv({ TROUPE_DATA_DIR: dataDir }), '', { cwd: dataDir });
    expect(listed.code).toBe(0);
    const row = listed.stdout.split('\n').find((l) => l.startsWith(id.slice(0, 8)))!;
    expect(row).toMatch(/free \(demo model\)$/);
    const cliListing = JSON.parse(readFileSync(indexPath, 'utf8')).sessions[id].listing;
    expect({ tokens: cliListing.tokens, free: cliListing.free }).toEqual({ tokens: all.tokens, free: true });
  }, 60_000);
});
