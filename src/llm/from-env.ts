import type { ChatModel } from './chat-model.js';
import { DemoModel } from './demo-model.js';
import { UserError } from './errors.js';
import { OpenAIChatModel } from './openai-model.js';
import { ToolFallbackModel } from './tool-fallback.js';
import { parseBaseUrl } from './base-url.js';

function whole(env: Record<string, string | undefined>, name: string, min: number): number | undefined {
  const raw = env[name]?.trim();
  if (!raw) return undefined;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < min) throw new UserError(`${name} must be a whole number >= ${min}, got "${raw}"`);
  return value;
}

/** True when a base URL points at this machine (local servers need no API key). */
export function isLocalUrl(url: string): boolean {
  try {
    const host = new URL(url).hostname;
    return host === 'localhost' || host === '::1' || host === '[::1]' || host.startsWith('127.') || host === '0.0.0.0';
  } catch {
    return false;
  }
}

/** Chooses the model from the environment: OpenAI-compatible (streaming, retries, tool fallback) when configured, else the offline demo model. */
export function modelFromEnv(env: Record<string, string | undefined> = process.env, options: { demo?: boolean } = {}): ChatModel {
  if (options.demo) return new DemoModel();
  const apiKey = env.OPENAI_API_KEY?.trim() || undefined;
  const baseURL = env.OPENAI_BASE_URL?.trim() || undefined;
  if (!apiKey && !baseURL) return new DemoModel();
  // Checked here so a bad URL fails at start-up, in one line that never shows a password.
  const parsed = baseURL ? parseBaseUrl(baseURL) : undefined;
  if (parsed?.authorization && apiKey) {
    throw new UserError(
      'OPENAI_BASE_URL carries a user name and password and OPENAI_API_KEY is set: both go in the Authorization header — keep one (for a server behind basic auth, unset OPENAI_API_KEY)',
    );
  }
  if (!apiKey && !parsed?.authorization && baseURL && !isLocalUrl(baseURL)) {
    throw new UserError(`OPENAI_BASE_URL points at ${new URL(baseURL).host} but OPENAI_API_KEY is not set — export OPENAI_API_KEY, or unset OPENAI_BASE_URL for the offline demo`);
  }
  const timeoutMs = whole(env, 'TROUPE_TIMEOUT_MS', 1);
  const maxRetries = whole(env, 'TROUPE_RETRIES', 0);
  const adapter = new OpenAIChatModel({ apiKey, baseURL, ...(timeoutMs !== undefined ? { timeoutMs } : {}), ...(maxRetries !== undefined ? { maxRetries } : {}) });
  return new ToolFallbackModel(adapter);
}
