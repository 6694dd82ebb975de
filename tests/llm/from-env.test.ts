import { describe, expect, it } from 'vitest';
import { modelFromEnv } from '../../src/llm/from-env.js';
import { UserError } from '../../src/llm/errors.js';
import { DemoModel } from '../../src/llm/demo-model.js';
import { ToolFallbackModel } from '../../src/llm/tool-fallback.js';

describe('modelFromEnv', () => {
  it('uses the demo model with no key and no base URL', () => {
    expect(modelFromEnv({})).toBeInstanceOf(DemoModel);
  });

  it('refuses a non-local base URL without a key, in one line that names the fix', () => {
    expect(() => modelFromEnv({ OPENAI_BASE_URL: 'https://openrouter.ai/api/v1' })).toThrow(UserError);
    expect(() => modelFromEnv({ OPENAI_BASE_URL: 'https://openrouter.ai/api/v1' })).toThrow(/^OPENAI_BASE_URL points at openrouter\.ai but OPENAI_API_KEY is not set — export OPENAI_API_KEY/);
  });

  it('accepts a local server without a key, wrapped with the tool-calling fallback', () => {
    const model = modelFromEnv({ OPENAI_BASE_URL: 'http://127.0.0.1:11434/v1' });
    expect(model).toBeInstanceOf(ToolFallbackModel);
    expect(model.label).toBe('openai-compatible http://127.0.0.1:11434/v1');
  });

  it('validates TROUPE_RETRIES and TROUPE_TIMEOUT_MS', () => {
    const env = { OPENAI_API_KEY: 'sk-x' };
    expect(() => modelFromEnv({ ...env, TROUPE_RETRIES: 'many' })).toThrow('TROUPE_RETRIES must be a whole number >= 0, got "many"');
    expect(() => modelFromEnv({ ...env, TROUPE_TIMEOUT_MS: '0' })).toThrow('TROUPE_TIMEOUT_MS must be a whole number >= 1, got "0"');
    expect(modelFromEnv({ ...env, TROUPE_RETRIES: '0', TROUPE_TIMEOUT_MS: '5000' })).toBeInstanceOf(ToolFallbackModel);
  });
});
