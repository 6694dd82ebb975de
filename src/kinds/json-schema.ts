import { z } from 'zod';
import { PersonaSchema } from '../config/persona-schema.js';
import { TeamSchema } from '../config/team-schema.js';
import { WorkflowConfigSchema } from '../workflow/config/workflow-schema.js';
import { RolesFileSchema } from '../workflow/config/roles-schema.js';

/** The JSON Schemas generated from the zod config schemas, keyed by file name. */
export function configJsonSchemas(): Record<string, string> {
  const render = (schema: z.ZodType, title: string) => {
    const json = z.toJSONSchema(schema, { target: 'draft-7', io: 'input' }) as Record<string, unknown>;
    return `${JSON.stringify({ ...json, title }, null, 2)}\n`;
  };
  return {
    'persona.schema.json': render(PersonaSchema, 'troupe persona'),
    'team.schema.json': render(TeamSchema, 'troupe team.json'),
    'workflow.schema.json': render(WorkflowConfigSchema, 'troupe workflow'),
    'roles.schema.json': render(RolesFileSchema, 'troupe roles.json (SynthDev roles)'),
  };
}
