/** Upgrades a raw file of version N to version N + 1 (keyed by N). */
export type Migration = (raw: Record<string, unknown>) => Record<string, unknown>;
