/** troupe for tests: models that answer from a script, deterministically and offline. */
export { ScriptedModel, type ScriptStep, type ScriptEntry } from './llm/scripted-model.js';
export { MemoryStore } from './store/memory-store.js';
