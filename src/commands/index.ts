/** User commands: parsing `!`/`/` lines into typed events, completion, inspection and execution. */
export { COMMANDS, findCommand, helpLines, type CommandSpec } from './catalog.js';
export { parseLine, isCommand, type ParsedLine, type InspectName } from './parse.js';
export { complete, type Completion } from './complete.js';
export { executeLine, applyParsed, type LineHost, type LineOutcome } from './execute.js';
export { inspect, type InspectSources } from './inspect.js';
export { situation, situationLine, type Situation } from './situation.js';
export { memoryLines, type MemorySource, type MemoryView, type MemoryViewSummary } from './memory-source.js';
