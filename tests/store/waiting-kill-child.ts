// A troupe session in a child process that the waiting-kill test kills: the real run with a lowdb store on
// the demo model and a clock that never moves (so no checkpoint comes due by time), killed once it waits for
// the user. Prints WAITING once the session waits and every document write asked for has landed.
// Usage: waiting-kill-child.ts <dataDir> <id>
import { DemoModel } from '../../src/llm/demo-model.js';
import { openSession } from '../../src/session/open-session.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { writesSettled } from '../../src/store/writes-in-flight.js';
import { REPO_ROOT, studio } from '../helpers/team.js';
import { BRIEF, ENV } from './support.js';

const [dataDir, id] = process.argv.slice(2);
const clock = () => Date.UTC(2026, 0, 1);
const session = await openSession({ team: studio(), teamDir: REPO_ROOT, model: new DemoModel(), store: new LowdbStore(dataDir!), id: id!, brief: BRIEF, env: ENV, clock });
session.start(BRIEF);
await session.settled();
await writesSettled();
process.stdout.write(`WAITING ${session.getSnapshot().status}\n`);
// Held open (as a terminal session waiting for its user is) until the test kills it.
setInterval(() => {}, 60_000);
