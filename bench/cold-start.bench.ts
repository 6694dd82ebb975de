// Cold start: from spawning a Node process to the first streamed word on its stdout, `troupe run` (memory
// on, a fresh data directory each time, against the local fake server) next to the raw openai SDK sending
// the same request (captured from troupe's first call) and printing its first content delta. Both are
// cold processes, started in turn (interleaved) so drift in the machine's load hits both alike.
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { FakeOpenAIServer, streamChunks } from '../tests/helpers/fake-openai-server.js';
import { interleaved, median, ms, QUICK } from './stats.js';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const CLI = join(ROOT, 'dist', 'cli.js');
const RUNS = QUICK ? 5 : 15;
const WORD = 'Lighthouse';

// CPU time (user + system) a process has used when it first writes WORD, told on stderr: on a machine under
// load the wall-clock figures carry the other processes' share too, the CPU figures only the process's own work.
const CPU_HOOK = `const w = process.stdout.write.bind(process.stdout); let seen = false;
process.stdout.write = (c, ...r) => { if (!seen && String(c).includes(${JSON.stringify(WORD)})) { seen = true; const u = process.cpuUsage(); process.stderr.write('cpu-ms ' + (u.user + u.system) / 1000 + '\\n'); } return w(c, ...r); };`;
const cpu: Record<string, number[]> = {};
// Every process started, until it exits: they go on past the first word (and save troupe's code cache on exit).
const exits: Promise<void>[] = [];

/** Milliseconds from spawning `node args` until WORD appears on its stdout (NaN: it never did); its CPU time then goes to `cpu[name]`. */
function firstWord(name: string, args: string[], env: Record<string, string>, hook: string): Promise<number> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const child = spawn(process.execPath, ['--import', hook, ...args], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let err = '';
    child.stderr.on('data', (d: Buffer) => {
      err += d.toString('utf8');
      const m = /cpu-ms ([\d.]+)/.exec(err);
      if (m) (cpu[name] ??= []).push(Number(m[1])), (err = '');
    });
    let out = '';
    let seen = false;
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString('utf8');
      if (!seen && out.includes(WORD)) {
        seen = true;
        resolve(performance.now() - t0);
      }
    });
    exits.push(new Promise((done) => child.on('exit', () => done())));
    child.on('exit', () => {
      if (!seen) resolve(NaN);
    });
  });
}

/** Prints the median times to the first word and their ratio. */
export default async function coldStart(): Promise<void> {
  if (!existsSync(CLI)) throw new Error('dist/cli.js is missing: npm run build');
  const reply = streamChunks(`${WORD} keeper: every choice spends light.`, { transition: 'RESPOND_TO_USER' }, { pieces: 3 });
  const server = await new FakeOpenAIServer(() => ({ stream: reply })).start();
  const dir = mkdtempSync(join(tmpdir(), 'troupe-bench-cold-'));
  const hook = join(dir, 'cpu-hook.mjs');
  writeFileSync(hook, CPU_HOOK);
  try {
    let n = 0;
    // troupe's code cache lives in the bench's folder: the warm-up round fills it, as a user's first start does.
    const env = (cache = join(dir, 'code-cache')) => ({
      OPENAI_BASE_URL: server.baseURL,
      OPENAI_API_KEY: 'bench',
      TROUPE_DATA_DIR: join(dir, `data-${n++}`),
      TROUPE_COMPILE_CACHE: cache,
      NODE_ENV: 'production',
    });
    // The raw SDK sends the request troupe's first call sends, captured once.
    await firstWord('capture', [CLI, 'run', 'a lighthouse game'], env(), hook);
    const body = server.requests.find((r) => r.url.endsWith('/chat/completions'))!.body as Record<string, unknown>;
    const script = join(dir, 'raw-sdk.mjs');
    writeFileSync(
      script,
      [
        `import OpenAI from ${JSON.stringify(pathToFileURL(join(ROOT, 'node_modules', 'openai', 'index.mjs')).href)};`,
        `const client = new OpenAI({ baseURL: process.env.OPENAI_BASE_URL, apiKey: process.env.OPENAI_API_KEY });`,
        `const stream = await client.chat.completions.create(${JSON.stringify(body)});`,
        `let first = true;`,
        `for await (const chunk of stream) { const t = chunk.choices[0]?.delta?.content; if (t && first) { first = false; process.stdout.write(t + '\\n'); } }`,
      ].join('\n'),
    );
    // BENCH_COLD_BASELINE=<path to another build's cli.js> adds that build to the same interleaved rounds (a before/after).
    const baseline = process.env.BENCH_COLD_BASELINE;
    const samples = await interleaved(RUNS, 1, {
      raw: () => firstWord('raw', [script], env(), hook),
      troupe: () => firstWord('troupe', [CLI, 'run', 'a lighthouse game'], env(), hook),
      // The first start after installing (or upgrading troupe or Node): nothing cached, the compiled code is saved.
      first: () => firstWord('first', [CLI, 'run', 'a lighthouse game'], env(join(dir, `fresh-cache-${n}`)), hook),
      ...(baseline ? { baseline: () => firstWord('baseline', [baseline, 'run', 'a lighthouse game'], env(), hook) } : {}),
    } as Record<'raw' | 'troupe' | 'first' | 'baseline', () => Promise<number>>);
    const m = (values: number[]) => median(values.filter((v) => !Number.isNaN(v)));
    const raw = m(samples.raw);

    process.stdout.write(
      `cold start to the first streamed word, median of ${RUNS} interleaved cold processes each (after 1 warm-up round), local fake server, the same ${(JSON.stringify(body).length / 1024).toFixed(1)} KiB request:\n`,
    );
    const c = (name: string) => median(cpu[name] ?? [NaN]);
    const row = (label: string, name: 'raw' | 'troupe' | 'first' | 'baseline', note = '') => {
      const wall = m(samples[name]);
      const ratio = name === 'raw' ? '' : `   ${(wall / raw).toFixed(2)}x the raw SDK (CPU ${(c(name) / c('raw')).toFixed(2)}x)`;
      process.stdout.write(`  ${label.padEnd(56)} ${ms(wall).padStart(10)}   CPU ${ms(c(name)).padStart(10)}${ratio}${note}\n`);
    };
    row('raw openai SDK (import, stream, print the first delta)', 'raw');
    row('troupe run (team, session file, memory on)', 'troupe', '   (target <= 1.5x; the issue measured 4.5x)');
    row('troupe run, first start (no code cache yet)', 'first');
    if (baseline) row(baseline, 'baseline');
  } finally {
    await Promise.all(exits);
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
