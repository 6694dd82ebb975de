import { beforeAll, describe, expect, it } from 'vitest';
import type { Scope } from '../../../src/engine/evaluation.js';
import type { SandboxEvaluator } from '../../../src/workflow/sandbox/index.js';
import { splitScope } from '../../../src/workflow/sandbox/kept-fields.js';
import { DEFAULT_LIMITS } from '../../../src/workflow/sandbox/program.js';
import { runJob, type Job } from '../../../src/workflow/sandbox/run-job.js';
import { wireScope } from '../../../src/workflow/sandbox/wire-contexts.js';
import { codeEvaluation, expr, guestContextFor, jobOf, PLACEMENTS, sandboxSessions, scopeOf, stmts, succeededValue } from './fixtures.js';

// The guest keeps some scope fields between a session's jobs (kept-fields.ts) and is sent only those that
// changed. Code never holds the kept objects themselves: whatever it does to what it is given must not reach
// the next job, whose scope here is the same (so nothing kept is sent again), unless the engine applied it.
const raw = (content: string) => ({
  content,
  tool_calls: [{ id: 'c1', name: 'search', arguments: '{"q":"a"}' }],
  finish_reason: 'stop',
  model: 'm',
  usage: { prompt_tokens: 1, completion_tokens: 2 },
});
const SCOPE = scopeOf({
  common_data: { list: [1] },
  input: { x: 1 },
  last_agent_response: 'hello',
  last_response: raw('hello'),
  // Arguments as data (not JSON text): the one kept object a naive guest would hand to code as it is.
  last_tool_calls: [{ name: 'search', arguments: { q: 'a', deep: { k: 1 } } }],
  agents: { coder: { response: 'hi', toolCalls: [{ name: 'run', arguments: { cmd: 'ls' } }], raw: raw('hi'), context: 'c', role: 'assistant' } },
  roster: { coder: { context: 'c', role: 'assistant' } },
  contexts: { c: [{ role: 'user', content: 'hi' }] },
  context_limits: { c: 1000 },
  sub_workflow_result: { r: 1 },
  last_error: { state: 's', message: 'boom' },
} as Partial<Scope>);

const ATTACK = `
var r = this.last_response; r.choices[0].message.content = 'evil'; r.model = 'evil'; r.choices.push(1);
var t = this.last_tool_calls; t[0].arguments.q = 'evil'; t[0].arguments.deep.k = 2; t[0].function.name = 'evil'; t.push({ name: 'evil' });
var a = this.agents.coder; a.toolCalls[0].arguments.cmd = 'evil'; a.response = 'evil'; a.getLastRawResponse().model = 'evil';
this.getAgent('coder').toolCalls.push({ name: 'evil' });
this.contexts.c.maxLength = 1; this.contexts.c.name = 'evil';
this.input.x = 'evil'; this.sub_workflow_result.r = 'evil'; this.last_error.message = 'evil'; this.common_data.list.push(2);
this.last_agent_response = 'evil';`;
const PROBE = `[this.last_response.choices[0].message.content, this.last_response.model, this.last_response.choices.length,
  this.last_tool_calls[0].arguments.q, this.last_tool_calls[0].arguments.deep.k, this.last_tool_calls[0].function.name, this.last_tool_calls.length,
  this.agents.coder.toolCalls[0].arguments.cmd, this.agents.coder.response, this.agents.coder.getLastRawResponse().model, this.getAgent('coder').toolCalls.length,
  this.contexts.c.maxLength, this.contexts.c.name, this.input.x, this.sub_workflow_result.r, this.last_error.message, this.common_data.list.length, last_agent_response]`;
const CLEAN = ['hello', 'm', 1, 'a', 1, 'search', 1, 'ls', 'hi', 'm', 1, 1000, 'c', 1, 1, 'boom', 1, 'hello'];

describe.each(PLACEMENTS)('what code does to the scope fields kept between jobs never reaches the next job, $placement', ({ inline }) => {
  const sessions = sandboxSessions(inline, [''], codeEvaluation(expr('1'), SCOPE, 'input'), 2);
  let session: SandboxEvaluator;
  beforeAll(() => {
    [session] = sessions() as [SandboxEvaluator];
  });

  it('a job that changes everything it is given leaves the next job (same scope) seeing the engine’s values', async () => {
    expect(await succeededValue(session.evaluate(codeEvaluation(expr(PROBE), SCOPE, 'input')))).toEqual(CLEAN);
    await succeededValue(session.evaluate(codeEvaluation(stmts(ATTACK), SCOPE)));
    expect(await succeededValue(session.evaluate(codeEvaluation(expr(PROBE), SCOPE, 'input')))).toEqual(CLEAN);
  });

  it('what the engine changed does reach the next job', async () => {
    const changed = { ...SCOPE, last_agent_response: 'new', last_tool_calls: [{ name: 'search', arguments: { q: 'b', deep: { k: 3 } } }], context_limits: { c: 5 } };
    expect(await succeededValue(session.evaluate(codeEvaluation(expr(PROBE), changed, 'input')))).toEqual(CLEAN.map((v, i) => (i === 17 ? 'new' : i === 3 ? 'b' : i === 4 ? 3 : i === 11 ? 5 : v)));
    // A field the scope no longer has is gone from the guest too.
    const { last_error: _, ...without } = changed;
    expect(await succeededValue(session.evaluate(codeEvaluation(expr('[this.last_error, last_agent_response]'), without as Scope, 'input')))).toEqual([null, 'new']);
    expect(await succeededValue(session.evaluate(codeEvaluation(expr(PROBE), SCOPE, 'input')))).toEqual(CLEAN);
  });
});

/** The job the evaluator sends: the kept fields apart from the rest. */
function keptJobOf(scope: Scope, source: string, limits = DEFAULT_LIMITS): Job {
  const job = jobOf(codeEvaluation(stmts(source), scope, 'input'));
  const wired = wireScope(scope);
  return { ...job, ...splitScope(wired.scope, (_k, v) => v), messages: wired.messages, limits };
}

describe('the host knows what the guest keeps', () => {
  const LIMITS = { ...DEFAULT_LIMITS, maxSteps: 100_000 };
  const guest = guestContextFor(LIMITS);
  const seen = (scope: Scope): unknown => JSON.parse(runJob(keptJobOf(scope, 'return last_agent_response', LIMITS), guest()).result).value;

  it('sends only what changed, and all of it again after a call that failed (it may have taken the fields or not)', () => {
    expect(seen(scopeOf({ last_agent_response: 'a' }))).toBe('a');
    expect(guest().held?.get('last_agent_response')).toBe('"a"');
    // Interrupted after the guest took 'b': the host cannot know it did, so it forgets what the guest holds.
    const failed = runJob(keptJobOf(scopeOf({ last_agent_response: 'b' }), 'while (true) {}', LIMITS), guest());
    expect(JSON.parse(failed.result)).toMatchObject({ ok: false });
    const after = guest().held;
    expect(seen(scopeOf({ last_agent_response: 'a' }))).toBe('a');
    expect(after).toBeNull();
    expect(seen(scopeOf({ last_agent_response: 'c' }))).toBe('c');
    expect(seen(scopeOf({ last_agent_response: 'c' }))).toBe('c');
  });

  it('tool-call arguments kept as data (a job not made by splitScope) reach code as a copy', () => {
    const job = (source: string): Job => ({ ...keptJobOf(scopeOf(), source, LIMITS), kept: { last_tool_calls: '[{"name":"t","arguments":{"q":"a"}}]' } });
    const value = (source: string): unknown => JSON.parse(runJob(job(source), guest()).result).value;
    expect(value('this.last_tool_calls[0].arguments.q = "evil"; return 1')).toBe(1);
    expect(value('return this.last_tool_calls[0].arguments.q')).toBe('a');
  });
});

describe('the wire form of the kept fields', () => {
  it('sends tool-call arguments given as data as their JSON text, which the guest parses back', () => {
    const calls = [
      { name: 'search', arguments: { q: 'a' } },
      { name: 'raw', arguments: 'not json' },
    ];
    const { kept } = splitScope({ last_tool_calls: calls, agents: { coder: { response: 'r', toolCalls: calls } } }, (_k, v) => v);
    expect(JSON.parse(kept.last_tool_calls!)).toEqual([
      { name: 'search', arguments: '{"q":"a"}' },
      { name: 'raw', arguments: 'not json' },
    ]);
    expect(JSON.parse(kept.agents!).coder.toolCalls[0].arguments).toBe('{"q":"a"}');
  });
});
