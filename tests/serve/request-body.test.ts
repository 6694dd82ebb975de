import { request } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { listen } from '../../src/serve/listen.js';
import { server, TOKEN } from '../helpers/serve.js';

/** A POST over real HTTP (Node's server: the body is read from the connection); chunked when no length is given. */
function post(port: number, path: string, body: string, withLength: boolean): Promise<{ status: number; json: unknown }> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
    if (withLength) headers['content-length'] = Buffer.byteLength(body);
    const req = request({ host: '127.0.0.1', port, path, method: 'POST', headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d: string) => (text += d));
      res.once('end', () => resolve({ status: res.statusCode!, json: JSON.parse(text) }));
    });
    req.once('error', reject);
    // In pieces, so a chunked body arrives as several chunks.
    for (let at = 0; at < body.length; at += 1000) req.write(body.slice(at, at + 1000));
    req.end();
  });
}

describe('request bodies on Node', () => {
  let close: () => void = () => undefined;
  afterEach(() => close());

  it('are limited whether they say their length or come in chunks, and parsed and checked as in-process', async () => {
    const { app, host } = server();
    const { server: http, port } = await listen(app.fetch, { hostname: '127.0.0.1', port: 0 });
    close = () => {
      http.close();
      void host.stopAll();
    };
    const big = JSON.stringify({ brief: 'x'.repeat(5000) });
    for (const withLength of [true, false]) {
      expect(await post(port, '/v1/sessions', big, withLength)).toEqual({ status: 413, json: { error: 'the body is larger than 4096 bytes' } });
      expect(await post(port, '/v1/sessions', '{"brief": ', withLength)).toEqual({ status: 400, json: { error: 'the body is not JSON' } });
      expect((await post(port, '/v1/sessions', JSON.stringify({ brief: 'x', colour: 'red' }), withLength)).json).toMatchObject({ error: expect.stringMatching(/Unrecognized key/) });
    }
    const created = await post(port, '/v1/sessions', JSON.stringify({ brief: 'a game' }), false);
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({ brief: 'a game' });
  });
});
