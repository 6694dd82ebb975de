// A troupe process that opens sessions with a brief (kept) and exits without closing them: the lock-link test checks
// what its exit leaves. Prints READY before it exits. Usage: lock-exit-child.ts <dataDir> <id>...
import { DemoModel } from '../../src/llm/demo-model.js';
import { openSession } from '../../src/session/open-session.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { writesSettled } from '../../src/store/writes-in-flight.js';
import { studio } from '../helpers/team.js';
import { BRIEF, ENV } from './support.js';

const [dataDir, ...ids] = process.argv.slice(2);
const store = new LowdbStore(dataDir!);
for (const id of ids) await openSession({ team: studio(), model: new DemoModel(), store, id, env: ENV, brief: BRIEF, clock: () => Date.UTC(2026, 0, 1) });
await writesSettled();
process.stdout.write('READY\n');
process.exit(0);
