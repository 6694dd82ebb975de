/** Model tiers a persona may name instead of a model id. */
export const TIERS = ['base', 'smart', 'fast'] as const;
/** A model tier name. */
export type Tier = (typeof TIERS)[number];

/**
 * Resolves a persona's `model` (a tier or a model id) to a model id.
 * Precedence: TROUPE_MODEL_<TIER>, then TROUPE_MODEL, then team.json `models`.
 */
export function resolveModelId(model: string, teamModels: Record<Tier, string>, env: Record<string, string | undefined> = process.env): string {
  if (!(TIERS as readonly string[]).includes(model)) return model;
  const tier = model as Tier;
  return env[`TROUPE_MODEL_${tier.toUpperCase()}`] || env.TROUPE_MODEL || teamModels[tier];
}
