import { UserError } from '../../errors.js';

/**
 * Registers a deployment (the URL Restate calls: one worker, or a load balancer in front of several) with the
 * Restate admin API. Registering the same URL again with the same services is a no-op; `force` replaces one
 * whose services changed (development only: invocations in flight keep the old code's journal).
 */
export async function registerDeployment(adminUrl: string, uri: string, options: { force?: boolean; fetch?: typeof fetch } = {}): Promise<string> {
  const doFetch = options.fetch ?? fetch;
  let response: Response;
  try {
    response = await doFetch(new URL('/deployments', adminUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ uri, ...(options.force ? { force: true } : {}) }),
    });
  } catch (error) {
    throw new UserError(`could not reach the Restate admin API at ${adminUrl}: ${(error as Error).message} — is restate-server running (admin port 9070)?`, { cause: error });
  }
  const text = await response.text();
  if (!response.ok) throw new UserError(`Restate refused to register ${uri} (HTTP ${response.status}): ${oneLine(text)}`);
  try {
    return String((JSON.parse(text) as { id?: unknown }).id ?? '');
  } catch {
    return '';
  }
}

function oneLine(text: string): string {
  try {
    const parsed = JSON.parse(text) as { message?: unknown };
    if (typeof parsed.message === 'string') return parsed.message.split('\n')[0]!;
  } catch {
    // not JSON: the text itself
  }
  return text.split('\n')[0]!.slice(0, 300);
}
