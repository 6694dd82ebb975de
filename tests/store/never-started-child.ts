// A troupe session in a child process that the never-started test kills before its first brief: opened on a
// lowdb store as the terminal UI opens one (with a brief when given), never started. Prints READY once the
// session's files are written, then waits to be killed.
// Usage: never-started-child.ts <dataDir> <id> [brief]
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DemoModel } from '../../src/llm/demo-model.js';
import { openSession } from '../../src/session/open-session.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { writesSettled } from '../../src/store/writes-in-flight.js';
import { studio } from '../helpers/team.js';
import { ENV } from './support.js';

const [dataDir, id, brief] = process.argv.slice(2);
const store = new LowdbStore(dataDir!);
await openSession({ team: studio(), model: new DemoModel(), store, id: id!, env: ENV, clock: () => Date.UTC(2026, 0, 1), ...(brief ? { brief } : {}) });
// Its own files (an agent's workspace), which go with it.
mkdirSync(join(store.filesOf(id!), 'ws'), { recursive: true });
writeFileSync(join(store.filesOf(id!), 'ws', 'notes.txt'), 'kept?\n');
await writesSettled();
process.stdout.write('READY\n');
setInterval(() => {}, 60_000);
