import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TroupeEvent } from '../../src/engine/event-map.js';
import { caller, comparable, conformanceTeam, Driver, embeddedBackend, SwitchableScript, type Backend } from '../conformance/harness.js';
import { SCENARIOS } from '../conformance/scenarios.js';
import { RestateCluster } from '../helpers/restate-cluster.js';

// One conformance suite, two backends: every scenario runs on the embedded backend (in this process) and on
// Restate (a real restate-server, two worker processes), against the same model server; the two event
// sequences must be the same apart from timestamps (see `comparable`), and each must pass the scenario's checks.
const model = new SwitchableScript();
let cluster: RestateCluster;
let team: ReturnType<typeof conformanceTeam>;

beforeAll(async () => {
  team = conformanceTeam();
  cluster = await RestateCluster.start(model.handler, 2, {}, ['--team', team.dir, '--allow-workflow-paths']);
}, 60_000);

afterAll(async () => {
  await cluster?.stop();
  team?.remove();
});

async function run(scenario: (typeof SCENARIOS)[number], backend: Backend): Promise<{ events: TroupeEvent[]; driver: Driver }> {
  model.use(scenario.script());
  const driver = new Driver(backend, model);
  const events = await scenario.run(driver);
  scenario.check(events, driver);
  return { events, driver };
}

describe('the conformance scenarios: the same events on the embedded backend and on Restate', () => {
  for (const scenario of SCENARIOS) {
    it(scenario.name, async () => {
      const embedded = embeddedBackend(team.dir, cluster.fake.baseURL);
      let local: TroupeEvent[];
      try {
        local = (await run(scenario, embedded)).events;
      } finally {
        await embedded.stop();
      }
      const onRestate = (await run(scenario, { name: 'restate', call: caller(cluster.app), stop: async () => undefined })).events;
      expect(comparable(onRestate)).toEqual(comparable(local));
    });
  }
});
