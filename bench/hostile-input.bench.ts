// Hostile input (issue 10, item 7): the worst cases met in the trial, each timed once. Every figure
// must stay bounded (the trial saw 148 s for the braces, 15.5 s for the CJK brief, > 300 s for the line).
import { performance } from 'node:perf_hooks';
import { extractJsonObject, parseDirective } from '../src/directive/parse.js';
import { countTokens } from '../src/memory/tokens.js';
import { sizeProblem } from '../src/llm/limits.js';
import { Memory } from '../src/memory/memory.js';
import { MemoryPromptBuilder } from '../src/memory/memory-prompt-builder.js';
import { MemorySchema } from '../src/config/team-schema.js';
import { agentById } from '../src/engine/definition.js';
import { initialState } from '../src/engine/step.js';
import { studio } from '../tests/helpers/team.js';
import { createHash } from 'node:crypto';
import { newestSlot } from '../src/store/checkpoint-slots.js';
import { cjkRun, longLine, openBraces, tornSlotsFile } from '../tests/fixtures/hostile-b/inputs.js';
import { median, ms, ratio } from './stats.js';

function timed<T>(fn: () => T): [T, number] {
  const t0 = performance.now();
  const value = fn();
  return [value, performance.now() - t0];
}

function promptWithHugeTurn(line: string): () => number {
  const team = studio();
  const persona = agentById(team.def, 'cfo')!;
  const memory = new Memory({ config: MemorySchema.parse({}) });
  memory.recordUser('A lighthouse game');
  memory.recordUser(line);
  const builder = new MemoryPromptBuilder(memory, { budget: 12_000 });
  const session = { ...initialState(team.def, { id: 'b' }), brief: 'A lighthouse game' };
  const call = { turnId: 't1', persona: 'cfo', path: persona.path, attempt: 1, inbox: { kind: 'continue' as const, text: 'Continue.' } };
  return () => builder.build({ def: team.def, session, call, persona, personaPrompt: team.loaded.prompts.cfo! }).length;
}

export default async function hostileInput(): Promise<void> {
  const braces = openBraces();
  const cjk = cjkRun();
  const line = longLine();
  countTokens('warm up the tokenizer');
  const rows: [string, number][] = [
    ['extractJsonObject: 200 KB of "{"', timed(() => extractJsonObject(braces))[1]],
    ['parseDirective: 200 KB of "{" then a directive', timed(() => parseDirective({ text: `${braces}{"transition":"COMPLETE"}`, toolCalls: [] }))[1]],
    ['countTokens: 40k CJK characters, no spaces', timed(() => countTokens(cjk))[1]],
    ['countTokens: 10 MB line', timed(() => countTokens(line))[1]],
    ['extractJsonObject: 10 MB line', timed(() => extractJsonObject(line))[1]],
    ['size limit check: 10 MB line (refused)', timed(() => sizeProblem('inputLine', line))[1]],
  ];
  const [build, builderMs] = timed(() => promptWithHugeTurn(line));
  rows.push(['memory: record a 10 MB line + first prompt build', builderMs + timed(build)[1]]);
  rows.push(['memory: next prompt build (cached counts)', timed(build)[1]]);
  process.stdout.write('worst-case inputs, one run each (trial before the fix: 148 s, 15.5 s, > 300 s)\n');
  for (const [name, t] of rows) process.stdout.write(`  ${name.padEnd(52)} ${ms(t).padStart(10)}\n`);
  tornSlots();
}

/** CPU milliseconds `fn` takes on this thread. */
function cpuMs(fn: () => unknown): number {
  const start = process.cpuUsage();
  fn();
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

// A hostile checkpoint file whose slots are all torn, loaded against one SHA-256 of the whole file (the floor), in turn.
function tornSlots(): void {
  const file = tornSlotsFile();
  const load: number[] = [];
  const floor: number[] = [];
  for (let i = 0; i < 3; i++) {
    load.push(cpuMs(() => newestSlot(file)));
    floor.push(cpuMs(() => createHash('sha256').update(file).digest()));
  }
  const [l, f] = [median(load), median(floor)];
  process.stdout.write(`  ${'newestSlot: 256 MiB, 17 torn slots (CPU, median 3)'.padEnd(52)} ${ms(l).padStart(10)}  ${ratio(l, f)} one hash of the file (${ms(f)})\n`);
}
