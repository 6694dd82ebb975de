import { afterAll, describe, expect, it } from 'vitest';
import type { EvaluationResult } from '../../../src/engine/evaluation.js';
import { createSandboxEvaluator, SandboxPool } from '../../../src/workflow/sandbox/index.js';
import { functionsOnThis, namesOf } from '../../../src/workflow/sandbox/script-on-this.js';
import { codeEvaluation, handler } from './fixtures.js';

// script.js functions go on `this` only when some code of the job can name them there: each costs more to
// define than most handlers' own work, and a function is reached on `this` by name only.
describe('which script.js functions a job defines on this', () => {
  const on = (script: string, ...pieces: string[]) => functionsOnThis(namesOf(script), pieces.map(namesOf));

  it('none when no code reads one as a property', () => {
    expect(on('function pre() { this.common_data.round = 1; }\nfunction post() { pre(); }')).toEqual([]);
  });

  it('those read as a property anywhere: script.js, the pieces, through an alias or optional chaining', () => {
    expect(on('function a() { return this.b(); }\nfunction b() {}\nfunction c(self) { return self?.d; }\nfunction d() {}\nfunction e() {}')).toEqual(['b', 'd']);
    expect(on('function helper() {}', 'this.helper() > 1')).toEqual(['helper']);
    // A comment between the dot and the name is no way around it.
    expect(on('function a() { return this. /* x */ b(); }\nfunction b() {}')).toEqual(['b']);
  });

  it('all of them when code reads this by a key given as a string', () => {
    expect(on('function a() { return this.hasOwnProperty("b"); }\nfunction b() {}')).toBeNull();
    expect(on('function b() {}', 'this.valueOf()["b"]')).toBeNull();
  });
});

describe('script.js functions on this behave as before', () => {
  const pool = new SandboxPool({ size: 1 });
  afterAll(() => pool.close());
  const value = async (script: string, name: string): Promise<unknown> => {
    const sandbox = createSandboxEvaluator({ pool, scriptFor: () => script });
    try {
      const result: EvaluationResult = await sandbox.evaluate(codeEvaluation(handler(name), undefined, 'decide'));
      if (!result.ok) throw new Error(result.error);
      return result.value;
    } finally {
      await sandbox.close();
    }
  };
  const HELPER = 'export function helper() { return 1; }\n';

  it('named on this, by a key, reflectively, plainly, and a default export’s methods', async () => {
    expect(await value(`${HELPER}export function calls() { return this.helper() + 1; }`, 'calls')).toBe(2);
    expect(await value(`${HELPER}export function byKey() { return [this.hasOwnProperty('helper'), this.hasOwnProperty('byKey')].join(); }`, 'byKey')).toBe('true,true');
    expect(await value(`${HELPER}export function listed() { return Object.getOwnPropertyNames(this).filter((n) => n === 'helper').join(); }`, 'listed')).toBe('helper');
    expect(await value(`${HELPER}export function plain() { return typeof helper; }`, 'plain')).toBe('function');
    expect(await value("export default { viaDefault() { return this.fromDefault(); }, fromDefault() { return 'd'; } };", 'viaDefault')).toBe('d');
  });
});
