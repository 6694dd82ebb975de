import type { z } from 'zod';
import type { Decision } from '../arbiter/proposal.js';
import type { DisplayItem } from '../report/display-item.js';
import type { CatalogSchema, DeliverablesSchema, GraphSchema, SessionListItemSchema, SessionViewSchema, StepViewSchema, TimelineSchema } from '../serve/api-schema.js';

// The console reads the API's own schemas (one source of the shapes), as types only: nothing of zod is bundled.

/** A session as `GET /v1/sessions/:id` answers. */
export type SessionViewJson = z.infer<typeof SessionViewSchema>;
/** A line of `GET /v1/sessions`. */
export type ListItem = z.infer<typeof SessionListItemSchema>;
/** `GET /v1/catalog`. */
export type Catalog = z.infer<typeof CatalogSchema>;
/** `GET /v1/sessions/:id/graph`. */
export type Graph = z.infer<typeof GraphSchema>;
/** `GET /v1/sessions/:id/timeline`. */
export type Timeline = z.infer<typeof TimelineSchema>;
/** One step of a timeline. */
export type Step = Timeline['steps'][number];
/** `GET /v1/sessions/:id/steps/:step`. */
export type StepView = z.infer<typeof StepViewSchema>;
/** `GET /v1/sessions/:id/deliverables`. */
export type DeliverablesJson = z.infer<typeof DeliverablesSchema>;

export type { Decision, DisplayItem };

/** One predicted next persona as the console reads it from state warming's `prediction` event (its persona and confidence). */
export interface PredictedPersona {
  persona: string;
  confidence: number;
}

/** An event as an SSE message carries it: the event (as `troupe run --json` prints it) and its display items. */
export interface EventData {
  type: string;
  seq: number;
  at: string | number;
  items?: DisplayItem[];
  [field: string]: unknown;
}
