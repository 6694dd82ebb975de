import { execFileSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../helpers/team.js';

const dist = (path: string) => pathToFileURL(join(REPO_ROOT, 'dist', path)).href;

/** Runs an ES module script in a fresh node that reports every ESM import of gpt-tokenizer or openai. */
function fresh(script: string): string {
  const hook = `import { register } from 'node:module';
register('data:text/javascript,' + encodeURIComponent('export async function resolve(s, c, n) { if (s === "gpt-tokenizer" || s === "openai") console.log("imported " + s); return n(s, c); }'));`;
  return execFileSync(process.execPath, ['--input-type=module', '-e', `${hook}\n${script}`], { encoding: 'utf8' });
}

describe('lazy start-up (issue 14, item 4)', () => {
  it('opening a demo session loads neither the tokenizer nor the openai SDK; the first count loads the tokenizer at once', () => {
    const out = fresh(`
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const loaded = () => Object.keys(require.cache).some((k) => k.includes('gpt-tokenizer'));
const { openSession } = await import('${dist('session/open-session.js')}');
const { DemoModel } = await import('${dist('llm/demo-model.js')}');
const { OpenAIChatModel } = await import('${dist('llm/openai-model.js')}');
new OpenAIChatModel({ apiKey: 'x' });
const session = await openSession({ model: new DemoModel(), memory: true, env: {} });
console.log('opened, tokenizer loaded: ' + loaded());
const { countTokens } = await import('${dist('memory/tokens.js')}');
console.log('count ' + countTokens('hello world') + ', tokenizer loaded: ' + loaded());
await session.stop();
`);
    expect(out.trim().split('\n')).toEqual(['opened, tokenizer loaded: false', 'count 2, tokenizer loaded: true']);
  });

  it('preloading loads the tokenizer in the background, once, and the same build a count before it loads', () => {
    const out = fresh(`
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const builds = () => Object.keys(require.cache).filter((k) => /gpt-tokenizer.cjs.bpeRanks/.test(k)).length;
const { loadTokenizer, countTokens } = await import('${dist('memory/tokens.js')}');
const pending = loadTokenizer();
console.log('count ' + countTokens('hello world'));
await Promise.all([pending, loadTokenizer()]);
console.log('ranks loaded ' + builds() + ' time(s)');
`);
    // Before, the background load imported the ES build as well: 'imported gpt-tokenizer', its ranks a second time.
    expect(out.trim().split('\n')).toEqual(['count 2', 'ranks loaded 1 time(s)']);
  });
});
