import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { ChatRequest } from '../../src/llm/chat-model.js';
import { OpenAIChatModel } from '../../src/llm/openai-model.js';

// probe13: a model server that streamed one line without end, or chunks without text without end, was read for as
// long as it went on: the SDK joins a line until its newline comes, troupe's limit counts only the answer's text,
// and every chunk re-arms the no-data timer. A turn that never ended; 350 MB resident after two minutes of one line.
const request: ChatRequest = { model: 'm', messages: [{ role: 'user', content: 'hi' }], meta: { purpose: 'persona', persona: 'ceo' } };
const MiB = 1024 * 1024;
/** Where the hostile server gives up by itself (so a troupe that reads on ends the test instead of hanging it). */
const SERVER_SENDS = 8 * MiB;

let server: Server | null = null;
afterEach(() => {
  server?.closeAllConnections();
  server?.close();
  server = null;
});

/** A server that answers every request by writing `piece` again and again (after `head`), up to SERVER_SENDS, and says whether the client let go first. */
async function hostile(head: string, piece: string): Promise<{ baseURL: string; dropped: Promise<boolean> }> {
  let dropped!: (value: boolean) => void;
  const seen = new Promise<boolean>((resolve) => (dropped = resolve));
  server = createServer((_req, res: ServerResponse) => {
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write(head);
    const chunk = Buffer.from(piece.repeat(Math.max(1, Math.floor((64 * 1024) / piece.length))));
    let sent = 0;
    let closed = false;
    res.on('close', () => {
      closed = true;
      dropped(sent < SERVER_SENDS);
    });
    const pump = () => {
      while (!closed && sent < SERVER_SENDS) {
        sent += chunk.length;
        if (!res.write(chunk)) return void res.once('drain', pump);
      }
      if (!closed) res.end();
    };
    pump();
  });
  await new Promise<void>((resolve) => server!.listen(0, '127.0.0.1', resolve));
  return { baseURL: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, dropped: seen };
}

const model = (baseURL: string) => new OpenAIChatModel({ baseURL, apiKey: 'k', maxRetries: 0, responseLimits: { totalBytes: 2 * MiB, lineBytes: 256 * 1024 } });

describe('a model server that sends without end is read only so far', () => {
  it('one line without end: the call fails in one line past the line limit, and the connection is let go', async () => {
    const { baseURL, dropped } = await hostile('data: {"choices":[{"index":0,"delta":{"content":"', 'a');
    await expect(model(baseURL).generate(request)).rejects.toThrow(
      `the model server at ${new URL(baseURL).host} sent a line of more than 256 KB without ending it, so troupe stopped reading (a broken or hostile server) — check OPENAI_BASE_URL`,
    );
    expect(await dropped).toBe(true);
  });

  it('chunks without text, without end: the call fails past the response limit', async () => {
    const empty = `data: ${JSON.stringify({ id: 'x', object: 'chat.completion.chunk', created: 0, model: 'm', choices: [{ index: 0, delta: {} }] })}\n\n`;
    const { baseURL, dropped } = await hostile('', empty);
    await expect(model(baseURL).generate(request)).rejects.toThrow(
      `the model server at ${new URL(baseURL).host} sent more than 2 MB for one answer, so troupe stopped reading (a broken or hostile server) — check OPENAI_BASE_URL`,
    );
    expect(await dropped).toBe(true);
  });
});
