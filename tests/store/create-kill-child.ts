// Sessions created many at once in a child process that the create-kill test SIGKILLs mid-creation: each is opened
// on a lowdb store with its brief (as troupe serve creates one), and its id printed once its create has returned
// (what the server acknowledges). Waves of 25 at once, until killed. Usage: create-kill-child.ts <dataDir>
import { DemoModel } from '../../src/llm/demo-model.js';
import { openSession } from '../../src/session/open-session.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { studio } from '../helpers/team.js';
import { BRIEF, ENV } from './support.js';

const [dataDir] = process.argv.slice(2);
const store = new LowdbStore(dataDir!);
const team = studio();
const model = new DemoModel();
for (let wave = 0; ; wave++) {
  await Promise.all(
    Array.from({ length: 25 }, async (_, i) => {
      const id = `c-${wave}-${i}`;
      await openSession({ team, model, store, id, brief: BRIEF, env: ENV });
      process.stdout.write(`created ${id}\n`);
    }),
  );
}
