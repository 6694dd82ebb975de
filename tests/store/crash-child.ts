// A troupe run in a child process that the crash test kills: the real headless run with a lowdb
// store, on the demo model slowed down so kills land mid-call. Usage: crash-child.ts <dataDir> <id> <delayMs>
import { DemoModel } from '../../src/llm/demo-model.js';
import { eventJson } from '../../src/report/event-lines.js';
import { openSession } from '../../src/session/open-session.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { REPO_ROOT, studio } from '../helpers/team.js';
import { BRIEF, ENV, SlowModel } from './support.js';

const [dataDir, id, delay] = process.argv.slice(2);
const session = await openSession({ team: studio(), teamDir: REPO_ROOT, model: new SlowModel(new DemoModel(), Number(delay)), store: new LowdbStore(dataDir!), id: id!, brief: BRIEF, env: ENV });
session.subscribe((e) => {
  if (e.type !== 'agent_delta') process.stdout.write(`${eventJson(e)}\n`);
});
session.start(BRIEF);
await session.settled();
await session.stop({ reason: 'awaiting_user' });
