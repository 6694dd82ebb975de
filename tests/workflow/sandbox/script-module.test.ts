import { describe, expect, it } from 'vitest';
import { loadScriptModule } from '../../../src/workflow/sandbox/script-module.js';

describe('script.js as seed 001 writes it', () => {
  it('drops export keywords and lists the top-level functions and variables', () => {
    const loaded = loadScriptModule(
      [
        'export function initializeWorkflow() { console.log(`Starting: ${this.input.task}`); }',
        'export async function later() {}',
        'function extractComplexity(response) { if (response.includes("export function x")) return "high"; return "low"; }',
        'export const decide = () => "stop";',
        'export { extractComplexity as other };',
        'let counter = 0;',
        'function outer() { function inner() {} const hidden = 1; }',
      ].join('\n'),
    );
    expect(loaded.ok).toBe(true);
    if (!loaded.ok) return;
    expect(loaded.names).toEqual(['initializeWorkflow', 'later', 'extractComplexity', 'decide', 'counter', 'outer']);
    expect(loaded.source).not.toMatch(/^export/m);
    expect(loaded.source).toContain('"export function x"');
    expect(loaded.source).toContain('function initializeWorkflow() { console.log(`Starting: ${this.input.task}`); }');
  });

  it('export default keeps its value under __default', () => {
    const loaded = loadScriptModule('export default () => 1;\nexport default function named() {}');
    expect(loaded).toMatchObject({ ok: true, names: ['__default', 'named'] });
    if (loaded.ok) expect(loaded.source).toBe('var __default = () => 1;\nfunction named() {}');
  });

  it('refuses imports and re-exports: the sandbox has no modules', () => {
    expect(loadScriptModule("import fs from 'fs';\nexport function a() {}")).toMatchObject({ ok: false, error: expect.stringMatching(/import/) });
    expect(loadScriptModule("export * from './other.js';")).toMatchObject({ ok: false, error: expect.stringMatching(/re-exports/) });
    expect(loadScriptModule("export { a } from './other.js';")).toMatchObject({ ok: false, error: expect.stringMatching(/re-exports/) });
  });
});
