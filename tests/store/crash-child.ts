// A troupe run in a child process that the crash test kills: the real headless run with a lowdb
// store, on the demo model slowed down so kills land mid-call. Usage: crash-child.ts <dataDir> <id> <delayMs>
import { runHeadless } from '../../src/cli/run-command.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import { LowdbStore } from '../../src/store/lowdb-store.js';
import { REPO_ROOT, studio } from '../helpers/team.js';
import { BRIEF, SlowModel } from './support.js';

const [dataDir, id, delay] = process.argv.slice(2);
await runHeadless({
  team: studio(),
  model: new SlowModel(new DemoModel(), Number(delay)),
  brief: BRIEF,
  mode: 'fsm',
  json: true,
  write: (line) => process.stdout.write(`${line}\n`),
  sessionId: id!,
  store: { store: new LowdbStore(dataDir!), teamDir: REPO_ROOT },
});
