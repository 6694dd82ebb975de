import type { ChatMessage, ChatRequest, ChatResponse } from './chat-model.js';

const LANGUAGES: { test: RegExp; ext: string; stub: (v: number) => string; comment: string }[] = [
  {
    test: /\bzig\b/i,
    ext: 'zig',
    comment: '//',
    stub: (v) =>
      `pub fn solve(input: []const u8) []const u8 {\n    return input;\n}\n${v > 1 ? '\ntest "solve keeps the input" {\n    try @import("std").testing.expectEqualStrings("qp", solve("qp"));\n}\n' : ''}`,
  },
  {
    test: /\b(typescript|ts)\b/i,
    ext: 'ts',
    comment: '//',
    stub: (v) => `export function solve(input: string): string {\n  return input;\n}\n${v > 1 ? '\nexport const checks = [solve("qp") === "qp"];\n' : ''}`,
  },
  { test: /\b(python|py)\b/i, ext: 'py', comment: '#', stub: (v) => `def solve(text: str) -> str:\n    return text\n${v > 1 ? '\nassert solve("qp") == "qp"\n' : ''}` },
  {
    test: /\b(rust|rs)\b/i,
    ext: 'rs',
    comment: '//',
    stub: (v) => `pub fn solve(input: &str) -> String {\n    input.to_string()\n}\n${v > 1 ? '\n#[test]\nfn keeps_input() { assert_eq!(solve("qp"), "qp"); }\n' : ''}`,
  },
  { test: /\b(javascript|js|node)\b/i, ext: 'js', comment: '//', stub: (v) => `export function solve(input) {\n  return input;\n}\n${v > 1 ? '\nconsole.assert(solve("qp") === "qp");\n' : ''}` },
];

/** The messages of the current turn after its closing user message: the tool traffic so far. */
function turnTraffic(messages: ChatMessage[]): ChatMessage[] {
  // The turn's message is the last user message before the first tool result (later user messages are notes).
  const firstTool = messages.findIndex((m) => m.role === 'tool');
  const before = firstTool === -1 ? messages.length : firstTool;
  let at = before - 1;
  while (at >= 0 && messages[at]!.role !== 'user') at--;
  return messages.slice(at + 1);
}

/** The task the turn is about (its closing user message), on one line. */
function taskOf(messages: ChatMessage[]): string {
  const traffic = turnTraffic(messages);
  const start = messages.length - traffic.length - 1;
  const first = (messages[start]?.content ?? '').split('\n').find((line) => line.trim() !== '') ?? '';
  return first.replace(/\s+/g, ' ').trim();
}

/**
 * The demo's moves with agent tools, visibly doing the work: it lists its workspace, then writes its
 * solution file (a first version, or a revised one when the file is already there), then answers.
 * Returns null once its writing is done (the caller gives the final answer).
 */
export function demoToolStep(request: ChatRequest, who: string): ChatResponse | null {
  const offered = new Set((request.tools ?? []).map((t) => t.name));
  const own = new Set(request.meta.workflow?.tools ?? []);
  if (!offered.has('write_file') || own.has('write_file')) return null;
  const traffic = turnTraffic(request.messages);
  const results = traffic.filter((m): m is Extract<ChatMessage, { role: 'tool' }> => m.role === 'tool');
  const task = taskOf(request.messages);
  const lang = LANGUAGES.find((l) => l.test.test(task));
  const file = `solution.${lang?.ext ?? 'md'}`;
  const call = (name: string, args: Record<string, unknown>): ChatResponse => ({
    text: '',
    toolCalls: [{ id: `demo-${name}-${results.length}`, name, arguments: JSON.stringify(args) }],
    usage: { promptTokens: Math.ceil(request.messages.reduce((n, m) => n + m.content.length, 0) / 4), completionTokens: 20 },
    finishReason: 'tool_calls',
    model: 'demo',
  });
  if (results.length === 0 && offered.has('list_files')) return call('list_files', {});
  if (results.some((r) => r.name === 'write_file')) return null;
  const listing = results.find((r) => r.name === 'list_files')?.content ?? '';
  const version = listing.includes(file) ? 2 : 1;
  const comment = lang?.comment ?? '';
  const head = comment
    ? `${comment} ${task.slice(0, 100)}\n${comment} by ${who} — version ${version} (demo model, offline)\n${version > 1 ? `${comment} revised after the reviewers' consensus\n` : ''}\n`
    : `# ${task.slice(0, 100)}\n\nBy ${who}, version ${version} (demo model, offline).${version > 1 ? " Revised after the reviewers' consensus." : ''}\n`;
  return call('write_file', { path: file, content: `${head}${lang ? lang.stub(version) : ''}` });
}

/** Whether this turn wrote a file (for the demo's words): which, and whether it was a revision. */
export function demoWrote(request: ChatRequest): { path: string; revised: boolean } | null {
  const traffic = turnTraffic(request.messages);
  const wrote = traffic.find((m): m is Extract<ChatMessage, { role: 'assistant' }> => m.role === 'assistant' && (m.toolCalls ?? []).some((c) => c.name === 'write_file'));
  const args = wrote?.toolCalls?.find((c) => c.name === 'write_file')?.arguments;
  try {
    const parsed = args ? (JSON.parse(args) as { path?: string; content?: string }) : null;
    return parsed?.path ? { path: parsed.path, revised: /version [2-9]/.test(parsed.content ?? '') } : null;
  } catch {
    return null;
  }
}

/** A reviewer's verdict in the demo: disagree in its first round, agree next, approve once the work was revised (its third turn). */
export function demoVerdict(request: ChatRequest, turns: number): Record<string, unknown> {
  const subject = request.messages
    .filter((m) => m.role === 'user')
    .map((m) => m.content)
    .join('\n');
  const ids = [...subject.matchAll(/^## Implementation \d+ of \d+: (\S+)/gm)].map((m) => m[1]!);
  const ranking = [...new Set(ids)].reverse();
  const approve = turns >= 2;
  return {
    agree: turns >= 1,
    approve,
    feedback: approve
      ? `(demo) the revision addresses the points; ${ranking[0] ?? 'the best implementation'} is ready.`
      : turns === 0
        ? `(demo) ${ranking[0] ?? 'the first implementation'} reads best, but every version needs tests for the edge cases.`
        : '(demo) agreed: add tests for the edge cases, then it can be approved.',
    ranking,
  };
}
