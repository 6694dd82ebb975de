import type { LoadedTeam } from '../src/config/load-team.js';
import { PersonaSchema, type Persona } from '../src/config/persona-schema.js';
import { TeamSchema } from '../src/config/team-schema.js';

/** A generated team of `size` personas spread over majors of 20, each with a trigger rule every fifth persona. */
export function generatedTeam(size: number): LoadedTeam {
  const majors: { id: string; lead: string; personas: string[] }[] = [];
  const personas: Persona[] = [];
  for (let i = 0; i < size; i++) {
    const majorIndex = Math.floor(i / 20);
    const id = `p${i}`;
    if (!majors[majorIndex]) majors[majorIndex] = { id: `MAJOR_${majorIndex}`, lead: id, personas: [] };
    majors[majorIndex]!.personas.push(id);
    personas.push(
      PersonaSchema.parse({
        id,
        name: `Persona ${i}`,
        major: `MAJOR_${majorIndex}`,
        prompt: `${id}.md`,
        description: `Generated persona number ${i}.`,
        triggers: i % 5 === 0 ? [{ keywords: [`topic${i}`], reason: `topic ${i}` }] : [],
      }),
    );
  }
  const team = TeamSchema.parse({
    name: `Generated ${size}`,
    majors: [...majors, { id: 'USER_INTERACTION', kind: 'user' }],
    initial: `MAJOR_0.p0`,
    pipeline: [{ stage: 'Only', persona: 'p0' }],
    limits: { max_turns: 1_000_000, ping_pong: 1_000, max_reworks_per_pair: 1_000 },
  });
  const prompts = Object.fromEntries(personas.map((p) => [p.id, `You are ${p.name}.`]));
  return { dir: '(generated)', team, personas, prompts };
}
