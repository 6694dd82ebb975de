// What a group commit of the journals would give troupe serve: N journals each appended a turn's line and flushed
// (one fsync each on libuv's thread pool, as a served session's turn is) against the same lines appended to one
// shared log flushed once per batch. Prints the process's CPU per line (user and system), interleaved, ROUNDS times.
// Usage: node --import tsx bench/serve-fsync.ts [journals=1000] [rounds=3]
import { closeSync, fsync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const N = Number(process.argv[2] ?? 1000);
const ROUNDS = Number(process.argv[3] ?? 3);
// About a served turn's journal line.
const line = Buffer.from(`${JSON.stringify({ n: 1, input: { type: 'agent_completed', text: 'x'.repeat(1700) } })}\n`);
const dir = mkdtempSync(join(tmpdir(), 'troupe-serve-fsync-'));
const journals = Array.from({ length: N }, (_, i) => openSync(join(dir, `${i}.jsonl`), 'a'));
const shared = openSync(join(dir, 'shared.log'), 'a');
const flush = (fd: number) => new Promise<void>((resolve, reject) => fsync(fd, (error) => (error ? reject(error) : resolve())));

async function measure(label: string, body: () => Promise<void>): Promise<void> {
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  await body();
  const cpu = process.cpuUsage(cpu0);
  const wall = performance.now() - t0;
  process.stdout.write(`${label.padEnd(46)} wall ${wall.toFixed(0).padStart(5)} ms  CPU ${((cpu.user + cpu.system) / N).toFixed(1).padStart(5)} us/line (system ${(cpu.system / N).toFixed(1)})\n`);
}

try {
  for (let r = 0; r < ROUNDS; r++) {
    await measure(`${N} journals, a line and an fsync each`, async () => {
      for (const fd of journals) writeSync(fd, line);
      await Promise.all(journals.map(flush));
    });
    await measure(`${N} journals, a line each, no fsync`, async () => {
      for (const fd of journals) writeSync(fd, line);
    });
    await measure(`one shared log, ${N} lines, one fsync`, async () => {
      for (let i = 0; i < N; i++) writeSync(shared, line);
      await flush(shared);
    });
    await measure(`one shared log, ${N} lines, an fsync per 50`, async () => {
      const flushes: Promise<void>[] = [];
      for (let i = 0; i < N; i++) {
        writeSync(shared, line);
        if (i % 50 === 49) flushes.push(flush(shared));
      }
      await Promise.all(flushes);
    });
  }
} finally {
  for (const fd of journals) closeSync(fd);
  closeSync(shared);
  rmSync(dir, { recursive: true, force: true });
}
