/**
 * The version of what step() derives from an input: bump it whenever step()'s events for the same state and input
 * change (a new event, another payload, another order). A schema-8 journal line stores its input, not its events,
 * and is stamped with the number it was written under; a reader replays step() to rebuild the events, and tells a
 * line written under another number whose replay no longer matches its check from a step that went wrong. The test
 * tests/engine/semantics.test.ts fails when step()'s output for a pinned journal changes.
 */
export const ENGINE_SEMANTICS = 1;
