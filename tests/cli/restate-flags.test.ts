import { describe, expect, it } from 'vitest';
import { cleanEnv, runCli } from '../helpers/cli.js';

describe('the Restate flags', () => {
  it('refuse a bad backend or URL with the usage line (exit 2)', async () => {
    const backend = await runCli(['serve', '--backend', 'cloud']);
    expect([backend.code, backend.stderr.split('\n')[0]]).toEqual([2, 'troupe: --backend must be embedded or restate, got "cloud"']);
    const url = await runCli(['serve', '--backend', 'restate', '--restate-url', 'nowhere']);
    expect([url.code, url.stderr.split('\n')[0]]).toEqual([2, 'troupe: --restate-url must be a URL such as http://127.0.0.1:8080, got "nowhere"']);
  });

  it('a worker off loopback needs the Restate identity keys', async () => {
    const result = await runCli(['worker', '--host', '0.0.0.0'], cleanEnv());
    expect(result.code).toBe(2);
    expect(result.stderr.split('\n')[0]).toBe("troupe: worker: listening on 0.0.0.0 needs TROUPE_RESTATE_IDENTITY_KEYS (the Restate cluster's publickeyv1_… key), or listen on 127.0.0.1");
  });
});
