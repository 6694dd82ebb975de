import { describe, expect, it } from 'vitest';
import { personaNamer } from '../../src/console/persona-name.js';

describe("the console's names for agent ids", () => {
  const catalog = { team: { name: 't', modes: [], majors: [], personas: [{ id: 'ceo', name: 'CEO', major: 'STRATEGIC', description: '' }] } };

  it("a workflow's agents by the session's graph, the team's by the catalog, memory in words, the unknown as its id", () => {
    const name = personaNamer({ names: { implementer_a: 'Implementer A' } }, catalog);
    expect(['implementer_a', 'ceo', '(memory)', 'nobody'].map(name)).toEqual(['Implementer A', 'CEO', 'memory summaries', 'nobody']);
    expect(personaNamer(null, catalog)('ceo')).toBe('CEO');
  });
});
