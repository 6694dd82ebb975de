import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { Usage } from '../llm/chat-model.js';
import { UserError } from '../errors.js';
import { PACKAGE_ROOT } from '../package-root.js';
import { PARSE_ONCE } from '../config/parse-once.js';
import { lazySchema } from '../config/lazy-schema.js';

const PriceSchema = lazySchema(() =>
  z.object({
    input: z.number().min(0),
    output: z.number().min(0),
    /** Prompt tokens served from the provider's cache; without it they cost `input`. */
    cached_input: z.number().min(0).optional(),
  }),
);

/** The price table file: USD per 1 million prompt (`input`), cached prompt (`cached_input`, optional) and completion (`output`) tokens, per model id. */
export const PriceFileSchema = lazySchema(() =>
  z.object({
    $comment: z.string().optional(),
    currency: z.string().default('USD'),
    as_of: z.string().optional(),
    models: z.record(z.string(), PriceSchema),
  }),
);

/** A model's price per 1 million tokens. */
export type ModelPrice = z.infer<typeof PriceSchema>;

// Dated snapshots: gpt-4o-2024-08-06, claude-3-5-sonnet-20241022, gpt-4-0613.
const SNAPSHOT = /-(\d{4}-\d{2}-\d{2}|\d{8}|\d{4})$/;

/** Looks up model prices; unknown models have none (never a guessed price). */
export class PriceTable {
  constructor(
    readonly models: Record<string, ModelPrice>,
    readonly source: string,
    readonly currency = 'USD',
  ) {}

  /** An empty table: every cost is unknown. */
  static empty(): PriceTable {
    return new PriceTable({}, '(none)');
  }

  /** The price of a model id: exact, then the id without a dated snapshot suffix. */
  priceOf(model: string): ModelPrice | null {
    const exact = this.models[model];
    if (exact) return exact;
    const base = model.replace(SNAPSHOT, '');
    return base !== model ? (this.models[base] ?? null) : null;
  }

  /** Cost of one call, or null when the model has no price; cached prompt tokens at `cached_input` where the table gives it. */
  cost(model: string, usage: Usage): number | null {
    const price = this.priceOf(model);
    if (!price) return null;
    const cached = Math.min(usage.cachedTokens ?? 0, usage.promptTokens);
    const input = (usage.promptTokens - cached) * price.input + cached * (price.cached_input ?? price.input);
    return (input + usage.completionTokens * price.output) / 1_000_000;
  }
}

/** Parses a price file's text; bad content is a one-line UserError naming the file and field. */
export function parsePriceTable(text: string, file: string): PriceTable {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (error) {
    throw new UserError(`${file}: not valid JSON (${(error as Error).message.split('\n')[0]}) — fix the file or unset TROUPE_PRICES`);
  }
  const parsed = PriceFileSchema.safeParse(json, PARSE_ONCE);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.map(String).join('.') || '(root)';
    throw new UserError(
      `${file}: ${field}: ${issue.message} — each model needs { "input": USD per 1M prompt tokens, "output": USD per 1M completion tokens } and may give "cached_input" (USD per 1M cached prompt tokens)`,
    );
  }
  return new PriceTable(parsed.data.models, file, parsed.data.currency);
}

/** The default price table shipped with troupe. */
export const DEFAULT_PRICES_FILE = join(PACKAGE_ROOT, 'pricing.json');

/** Loads the price table from TROUPE_PRICES, else the shipped pricing.json. */
export function loadPriceTable(env: Record<string, string | undefined> = process.env): PriceTable {
  const file = env.TROUPE_PRICES?.trim() || DEFAULT_PRICES_FILE;
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new UserError(`cannot read the price table ${file} — check TROUPE_PRICES`);
  }
  return parsePriceTable(text, file);
}
