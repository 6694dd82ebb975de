import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveSessionId } from '../../src/cli/session-lookup.js';
import { resumeHeadless } from '../../src/cli/resume-command.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import { MemoryStore } from '../../src/store/memory-store.js';
import { REPO_ROOT, studio } from '../helpers/team.js';

const FIXTURE = JSON.parse(readFileSync(join(REPO_ROOT, 'tests', 'fixtures', 'sessions', 'v1.json'), 'utf8'));

/** Stores the v1 fixture (waiting for the user) as `id`, last updated on `day` of March, with an edit. */
function put(store: MemoryStore, id: string, day: number, edit: (doc: any) => void = () => {}): void {
  const doc = structuredClone(FIXTURE);
  doc.id = id;
  doc.snapshot.id = id;
  doc.updatedAt = `2026-03-${String(day).padStart(2, '0')}T00:00:00.000Z`;
  edit(doc);
  store.texts.set(id, JSON.stringify(doc));
}

const ended = (doc: any) => {
  doc.snapshot.status = 'ended';
  doc.snapshot.endReason = 'user quit';
};
const neverStarted = (doc: any) => {
  doc.brief = '';
  Object.assign(doc.snapshot, { status: 'idle', brief: '', turn: 0, transcript: [], transitions: [], history: [], active: null, awaiting: null });
  doc.events = [];
};

/** A store whose newer sessions are ended, never started, and open elsewhere; the oldest one can go on. */
async function mixed(): Promise<MemoryStore> {
  const store = new MemoryStore();
  put(store, 'good', 1);
  put(store, 'open-elsewhere', 2);
  put(store, 'not-started', 3, neverStarted);
  put(store, 'finished', 4, ended);
  await store.open('open-elsewhere');
  return store;
}

describe('which session troupe resume takes when no id is given', () => {
  it('the most recently updated one that is not ended, has a brief and is not open elsewhere', async () => {
    const store = await mixed();
    expect(await resolveSessionId(store, undefined)).toBe('good');
    // show and export still take the newest, whatever its state.
    expect(await resolveSessionId(store, undefined, 'newest')).toBe('finished');
  });

  it('an explicit id still opens exactly that session', async () => {
    const store = await mixed();
    expect(await resolveSessionId(store, 'finished')).toBe('finished');
    expect(await resolveSessionId(store, 'not-st')).toBe('not-started');
  });

  it('headless resume continues the resumable session, not the newest', async () => {
    const store = await mixed();
    const lines: string[] = [];
    const { id } = await resumeHeadless({ store, json: false, write: (l) => lines.push(l), model: () => new DemoModel(), openTeam: () => studio() });
    expect(id).toBe('good');
    expect(lines[0]).toMatch(/^troupe · resuming session good /);
  });

  it('when none can be resumed: one line saying why and how to pick one', async () => {
    const store = await mixed();
    store.texts.delete('good');
    await expect(resolveSessionId(store, undefined)).rejects.toThrow(
      'no session can be resumed (1 ended, 1 never started, 1 open in another process) — list them with troupe sessions, then pick one with troupe resume <id>, or start one with troupe run "<brief>"',
    );
    await expect(resolveSessionId(new MemoryStore(), undefined)).rejects.toThrow(/^no stored sessions yet/);
  });
});
