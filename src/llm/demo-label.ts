// The demo model's label on its own, so what only checks a stored label (the sessions listing) does not load the demo script.

/** The demo model's label, as a session document (or a Restate session's meta) records the model it ran on. */
export const DEMO_MODEL_LABEL = 'demo model (offline, scripted — set OPENAI_API_KEY for a real model)';

/** Whether a recorded model label is the demo model's: its calls cost nothing. */
export const isDemoLabel = (label: string): boolean => label === DEMO_MODEL_LABEL;
