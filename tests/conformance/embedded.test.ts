import { afterAll, beforeAll, describe, it } from 'vitest';
import { FakeOpenAIServer } from '../helpers/fake-openai-server.js';
import { conformanceTeam, Driver, embeddedBackend, SwitchableScript } from './harness.js';
import { SCENARIOS } from './scenarios.js';

// The conformance scenarios on the embedded backend (`npm test`); `npm run test:restate` runs the same ones on
// Restate and compares the two event sequences (tests/serve/restate-conformance.test.ts).
const model = new SwitchableScript();
let fake: FakeOpenAIServer;
let team: ReturnType<typeof conformanceTeam>;

beforeAll(async () => {
  fake = await new FakeOpenAIServer(model.handler).start();
  team = conformanceTeam();
});

afterAll(async () => {
  await fake?.stop();
  team?.remove();
});

describe('the conformance scenarios on the embedded backend', () => {
  for (const scenario of SCENARIOS) {
    it(scenario.name, async () => {
      model.use(scenario.script());
      const backend = embeddedBackend(team.dir, fake.baseURL);
      try {
        const driver = new Driver(backend, model);
        scenario.check(await scenario.run(driver), driver);
      } finally {
        await backend.stop();
      }
    });
  }
});
