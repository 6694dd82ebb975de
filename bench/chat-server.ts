// A local OpenAI-compatible chat server for benchmarks, run as its own process (its memory is not the
// session's), streaming as the OpenAI adapter asks: persona calls stream ~600 characters and a handoff_directive to a persona the roster in the
// system prompt allows, round the roster; summary calls (JSON mode) a summary; the call numbered LAST (argv[2])
// returns RESPOND_TO_USER. Listens on 127.0.0.1 and prints its port.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

const last = Number(process.argv[2] ?? 100);
let turn = 0;

type Message = { role: string; content?: string | null };

function targets(system: string): string[] {
  const out: string[] = [];
  for (const line of system.split('\n')) {
    const m = /^- .+ \(id: ([a-z0-9_]+), [A-Z_]+\)(.*)$/.exec(line);
    if (m && !m[2]!.startsWith(' (you)') && !m[2]!.includes('[not a handoff target for you]')) out.push(m[1]!);
  }
  return out;
}

function chunk(delta: unknown, finish: string | null = null): string {
  return `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'bench', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;
}

const server = createServer((req, res) => {
  const parts: Buffer[] = [];
  req.on('data', (d: Buffer) => parts.push(d));
  req.on('end', () => {
    const body = JSON.parse(Buffer.concat(parts).toString('utf8')) as { messages: Message[]; tools?: unknown[] };
    const system = body.messages.find((m) => m.role === 'system')?.content ?? '';
    const usage = { prompt_tokens: 900, completion_tokens: 150, total_tokens: 1050 };
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    const usageChunk = `data: ${JSON.stringify({ id: 'c', object: 'chat.completion.chunk', created: 0, model: 'bench', choices: [], usage })}\n\n`;
    if (!body.tools?.length) {
      const text = JSON.stringify({ decisions: ['scope held'], discussions: ['chapters weighed'], pending: [] });
      res.write(chunk({ role: 'assistant', content: text }));
      res.write(chunk({}, 'stop'));
      res.end(`${usageChunk}data: [DONE]\n\n`);
      return;
    }
    turn += 1;
    const allowed = targets(system);
    const directive =
      turn >= last
        ? { transition: 'RESPOND_TO_USER' }
        : {
            transition: 'HANDOFF_TO_AGENT',
            next_agent: allowed[(turn * 7) % Math.max(1, allowed.length)],
            urgency: 0.6,
            dependency: 0.7,
            user_intent: 0.5,
            ...(turn % 10 === 0 ? { key_decisions: [`decision ${turn}`] } : {}),
          };
    const text = `Turn ${turn}: ${'we weigh scope, cost and feel of the lighthouse chapters; '.repeat(10)}`;
    res.write(chunk({ role: 'assistant', content: '' }));
    for (let i = 0; i < text.length; i += 200) res.write(chunk({ content: text.slice(i, i + 200) }));
    res.write(chunk({ tool_calls: [{ index: 0, id: 'call_1', type: 'function', function: { name: 'handoff_directive', arguments: JSON.stringify(directive) } }] }));
    res.write(chunk({}, 'tool_calls'));
    res.end(`${usageChunk}data: [DONE]\n\n`);
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => process.stdout.write(`${(server.address() as AddressInfo).port}\n`));
