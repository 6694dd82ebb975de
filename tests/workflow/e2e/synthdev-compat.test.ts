import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cleanEnv } from '../../helpers/cli.js';
import { REPO_ROOT } from '../../helpers/team.js';
import { messagesOf, ofType, reply, roleServerPerTest, runJson, statesEntered, toolsOf } from '../../helpers/workflow-run.js';
import type { RecordedRequest } from '../../helpers/fake-openai-server.js';

// A workflow in SynthDev's own format and layout (tests/fixtures/synthdev/src/config/): bookshop_visit.json
// with bookshop_visit/script.js (`export default { ... }`, handlers that own the conversation through
// this.workflow_contexts and JSON.parse the tool-call arguments of this.last_response), a `user`-role agent
// with a parsingOnly tool, `"pre_handler": null`, and its roles in config/roles/bookshop/*.testing.json.
//
// bookshop_visit.recorded.json holds the requests SynthDev's own engine sent for it: SynthDev at the commit
// before its workflow engine was removed (a9574d2^), run from a scratch copy outside this repository with
// its OpenAI client pointed at a local scripted server answering with the same replies as below. The
// environment block SynthDev appends to every system message (OS, working directory, date) is cut off
// there: troupe does not send it (README, "Moving from SynthDev").
const FIXTURE = join(REPO_ROOT, 'tests', 'fixtures', 'synthdev');
const WORKFLOW = join('tests', 'fixtures', 'synthdev', 'src', 'config', 'workflows', 'bookshop_visit.json');

interface Recorded {
  input: string;
  replies: Record<'bookseller' | 'visitor', { text?: string; tool?: { name: string; arguments: unknown } }[]>;
  output: string;
  states_visited: string[];
  requests: { tools: string[]; tool_choice: unknown; messages: { role: string; content: string | null }[] }[];
}
const recorded = JSON.parse(readFileSync(join(FIXTURE, 'bookshop_visit.recorded.json'), 'utf8')) as Recorded;

const roleOfRequest = (req: RecordedRequest): string => {
  const system = messagesOf(req).find((m) => m.role === 'system')?.content ?? '';
  return system.startsWith('You are Ada') ? 'bookseller' : system.startsWith('You are a visitor') ? 'visitor' : 'unknown';
};

const serveRoles = roleServerPerTest();

describe("SynthDev's own files run unchanged (troupe run --workflow <path>/<name>.json)", () => {
  it('sends, call by call, exactly the messages SynthDev sends, forces the parsingOnly tool, and ends with its output', async () => {
    const script = (role: 'bookseller' | 'visitor') => recorded.replies[role].map((r) => reply(r.text ?? '', r.tool));
    const server = await serveRoles({ bookseller: script('bookseller'), visitor: script('visitor') }, roleOfRequest);
    const run = await runJson(['run', '--workflow', WORKFLOW, '--input', recorded.input], cleanEnv({ OPENAI_BASE_URL: server.baseURL }));
    expect(run.stderr).toContain('saved');
    expect(run.code).toBe(0);
    expect(server.unexpected).toEqual([]);
    expect(server.requests).toHaveLength(recorded.requests.length);

    recorded.requests.forEach((expected, i) => {
      const sent = server.requests[i]!;
      const messages = messagesOf(sent).map((m) => ({ role: m.role, content: m.content }));
      expect({ call: i, messages }).toEqual({ call: i, messages: expected.messages });
      expect(toolsOf(sent)).toEqual(expected.tools);
      // SynthDev sends tool_choice "auto" even with no tools; troupe sends it only with tools to choose from.
      if (expected.tools.length > 0) expect((sent.body as { tool_choice: unknown }).tool_choice).toEqual(expected.tool_choice);
    });

    expect(statesEntered(run.events)).toEqual([...recorded.states_visited, 'stop']);
    const ended = ofType(run.events, 'session_ended');
    expect(ended[0]).toMatchObject({ output: recorded.output });
  });

  it('troupe run --roles DIR reads that roles tree first: its bookseller answers, the visitor still comes from config/roles', async () => {
    const mine = mkdtempSync(join(tmpdir(), 'troupe-roles-'));
    mkdirSync(join(mine, 'shop'));
    writeFileSync(join(mine, 'shop', 'staff.testing.json'), JSON.stringify({ bookseller: { systemMessage: 'You are Bob, a bookseller.', includedTools: [] } }));
    const pick = (req: RecordedRequest) => (messagesOf(req)[0]?.content?.startsWith('You are Bob') ? 'bob' : roleOfRequest(req));
    const server = await serveRoles({ bob: [reply('Hello, I am Bob.')], visitor: [reply('', { name: 'visit_decision', arguments: { still_browsing: false, summary: 'Met Bob.' } })] }, pick);
    const run = await runJson(['run', '--workflow', WORKFLOW, '--roles', mine, '--input', 'Hello?'], cleanEnv({ OPENAI_BASE_URL: server.baseURL }));
    rmSync(mine, { recursive: true, force: true });
    expect(run.code).toBe(0);
    expect(server.unexpected).toEqual([]);
    expect(server.requests.map(pick)).toEqual(['bob', 'visitor']);
    expect(ofType(run.events, 'session_ended')[0]).toMatchObject({ output: 'Met Bob.' });
  });

  it('finds the roles in config/roles/<group>/ by their own names and by group.name, and TROUPE_ROLES / --roles point elsewhere', async () => {
    const { loadWorkflow, loadWorkflowOrThrow } = await import('../../../src/workflow/load/load-workflow.js');
    const loaded = loadWorkflow(WORKFLOW, { cwd: REPO_ROOT, env: {} });
    expect(loaded.issues).toEqual([]);
    expect(loaded.plan!.agents.map((a) => [a.id, a.role, a.forcedTool ?? null])).toEqual([
      ['bookseller', 'assistant', null],
      ['visitor', 'user', 'visit_decision'],
    ]);
    expect(loaded.plan!.states.map((s) => [s.name, s.owned ?? false])).toEqual([
      ['start', true],
      ['visitor_turn', true],
      ['bookseller_turn', true],
      ['stop', false],
    ]);
    // --roles (or TROUPE_ROLES) is read first: its bookseller wins; the visitor still comes from config/roles beside the workflow.
    const mine = mkdtempSync(join(tmpdir(), 'troupe-roles-'));
    mkdirSync(join(mine, 'shop'));
    writeFileSync(join(mine, 'shop', 'staff.testing.json'), JSON.stringify({ bookseller: { systemMessage: 'You are Bob.', includedTools: [] } }));
    for (const options of [{ roles: mine }, { env: { TROUPE_ROLES: mine } }]) {
      const plan = loadWorkflowOrThrow(WORKFLOW, { cwd: REPO_ROOT, env: {}, ...options });
      expect(plan.agents.map((a) => a.systemMessage.slice(0, 12))).toEqual(['You are Bob.', 'You are a vi']);
    }
    // A role is reachable as group.name too (the group is the file name's last part, as in SynthDev).
    const copy = mkdtempSync(join(tmpdir(), 'troupe-synthdev-'));
    cpSync(join(FIXTURE, 'src'), join(copy, 'src'), { recursive: true });
    const file = join(copy, 'src', 'config', 'workflows', 'bookshop_visit.json');
    writeFileSync(file, readFileSync(file, 'utf8').replaceAll('"visitor"', '"testing.visitor"'));
    const grouped = loadWorkflowOrThrow(file, { cwd: copy, env: {} });
    expect(grouped.agents.map((a) => a.id)).toEqual(['bookseller', 'testing.visitor']);
    rmSync(mine, { recursive: true, force: true });
    rmSync(copy, { recursive: true, force: true });
  });
});
