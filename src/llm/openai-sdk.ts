import type OpenAI from 'openai';

/** The openai SDK's client class (its error classes hang off it). */
export type OpenAISdk = typeof OpenAI;

// The SDK is about 0.1 s of imports that a demo session never needs: it is loaded by the first call.
let sdk: OpenAISdk | null = null;
let loading: Promise<OpenAISdk> | null = null;

/** Loads the openai SDK (once). */
export function loadOpenAI(): Promise<OpenAISdk> {
  loading ??= import('openai').then((m) => (sdk = m.default));
  return loading;
}

/** The SDK once loaded, else null (then no SDK error can have been thrown either). */
export function loadedOpenAI(): OpenAISdk | null {
  return sdk;
}
