import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import type { FakeReply, RecordedRequest } from './fake-openai-server.js';
import { FakeOpenAIServer } from './fake-openai-server.js';
import { cleanEnv, runCli } from './cli.js';
import { REPO_ROOT } from './team.js';

/** A tool call the fake server answers with. */
export interface ToolCallReply {
  name: string;
  arguments?: unknown;
  /** The arguments as raw text, sent as they are instead of `arguments` as JSON (a model can send any text). */
  rawArguments?: string;
}

/** A non-streamed completion (the server streams it when asked) with text and, optionally, one tool call of any name. */
export function reply(text: string, tool?: ToolCallReply, extra: Partial<FakeReply> = {}): FakeReply {
  const calls = tool ? [{ id: `call_${tool.name}`, type: 'function', function: { name: tool.name, arguments: tool.rawArguments ?? JSON.stringify(tool.arguments) } }] : undefined;
  return {
    ...extra,
    body: {
      id: 'chatcmpl-wf',
      object: 'chat.completion',
      created: 0,
      model: 'test-model',
      choices: [{ index: 0, finish_reason: calls ? 'tool_calls' : 'stop', message: { role: 'assistant', content: text, ...(calls ? { tool_calls: calls } : {}) } }],
      usage: { prompt_tokens: 40, completion_tokens: 10, total_tokens: 50 },
    },
  };
}

/** One message of a recorded request, as the model was sent it. */
export interface SentMessage {
  role: string;
  content: string | null;
  tool_calls?: { function: { name: string; arguments: string } }[];
  tool_call_id?: string;
}

/** The messages of a recorded request. */
export const messagesOf = (req: RecordedRequest): SentMessage[] => (req.body as { messages: SentMessage[] }).messages;
/** The tools offered in a recorded request, by name. */
export const toolsOf = (req: RecordedRequest): string[] => ((req.body as { tools?: { function: { name: string } }[] }).tools ?? []).map((t) => t.function.name);
/** The non-system messages of a request as `role: content` lines, for exact comparisons. */
export const dialogueOf = (req: RecordedRequest): string[] =>
  messagesOf(req)
    .filter((m) => m.role !== 'system')
    .map((m) => `${m.role}: ${m.content ?? ''}`);

/** The shipped roles' system messages, so a request can be told apart by the role it was made for. */
const SHIPPED_ROLES = JSON.parse(readFileSync(join(REPO_ROOT, 'workflows', 'roles.json'), 'utf8')) as Record<string, { systemMessage: string }>;

/** The role a request was made for: the role whose system message it carries (shipped roles unless others are given). */
export function roleOf(req: RecordedRequest, roles: Record<string, { systemMessage: string }> = SHIPPED_ROLES): string {
  const system = messagesOf(req).find((m) => m.role === 'system')?.content ?? '';
  const found = Object.entries(roles).find(([, r]) => system.startsWith(r.systemMessage));
  return found?.[0] ?? 'unknown';
}

/** A step of a role's script: a reply, or a function of the request and of how many calls that role had before. */
export type RoleStep = FakeReply | ((req: RecordedRequest, n: number) => FakeReply | Promise<FakeReply>);

/**
 * A fake server answering each role from its own script in order (a one-step script answers every call);
 * a request for a role with no script, or past its end, gets a 500 and is listed in `unexpected`.
 */
export class RoleServer extends FakeOpenAIServer {
  readonly unexpected: string[] = [];
  private readonly counts = new Map<string, number>();

  constructor(scripts: Record<string, RoleStep[]>, pick: (req: RecordedRequest) => string = (req) => roleOf(req)) {
    super((req) => {
      const role = pick(req);
      const n = this.counts.get(role) ?? 0;
      this.counts.set(role, n + 1);
      const script = scripts[role];
      const step = script?.length === 1 ? script[0] : script?.[n];
      if (!step) {
        this.unexpected.push(`${role} call #${n + 1}`);
        return { status: 500, body: { error: { message: `no scripted answer for ${role} call #${n + 1}` } } };
      }
      return typeof step === 'function' ? step(req, n) : step;
    });
  }

  /** The requests made for one role, in order. */
  of(role: string, pick: (req: RecordedRequest) => string = (req) => roleOf(req)): RecordedRequest[] {
    return this.requests.filter((r) => pick(r) === role);
  }
}

/** For a test file: returns `serve(scripts, pick)`, which starts a RoleServer; every one a test started is stopped after it. */
export function roleServerPerTest(): (scripts: Record<string, RoleStep[]>, pick?: (req: RecordedRequest) => string) => Promise<RoleServer> {
  const started: RoleServer[] = [];
  afterEach(async () => {
    await Promise.all(started.splice(0).map((s) => s.stop()));
  });
  return async (scripts, pick) => {
    const server = await new RoleServer(scripts, pick).start();
    started.push(server);
    return server;
  };
}

/** A parsed `--json` event line (agent_delta lines left out). */
export type JsonEvent = { type: string } & Record<string, any>;

/** A headless CLI run: exit code, stderr, the events it printed and the session id. */
export interface WorkflowRun {
  code: number;
  stderr: string;
  events: JsonEvent[];
  id: string;
}

/** Parses `--json` output into events, leaving out the streamed deltas. */
export function parseEvents(stdout: string): JsonEvent[] {
  return stdout
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.includes('"type":"agent_delta"'))
    .map((l) => JSON.parse(l) as JsonEvent);
}

/** Runs the real CLI (`main(argv, io)` in this process) with `--json` and parses its events. */
export async function runJson(args: string[], env: NodeJS.ProcessEnv = cleanEnv(), input = '', options: { cwd?: string } = {}): Promise<WorkflowRun> {
  const result = await runCli([...args, '--json'], env, input, options);
  const events = parseEvents(result.stdout);
  return { code: result.code, stderr: result.stderr, events, id: String(events.find((e) => e.type === 'session_started')?.session_id ?? '') };
}

/** The payloads of the events of one type. */
export const ofType = (events: JsonEvent[], type: string): JsonEvent[] => events.filter((e) => e.type === type);
/** The state paths entered, in order. */
export const statesEntered = (events: JsonEvent[]): string[] => ofType(events, 'state_entered').map((e) => String(e.path));
/** The transitions taken, as `from -> to`. */
export const transitionsOf = (events: JsonEvent[]): string[] => ofType(events, 'transition').map((e) => `${e.from} -> ${e.to}`);
/** Who said what: each agent message as `persona[@branch]: text`. */
export const transcriptOf = (events: JsonEvent[]): string[] => ofType(events, 'agent_message').map((e) => `${e.persona}${e.branch ? `@${e.branch}` : ''}: ${e.text}`);
