import type { FakeReply, RecordedRequest } from './fake-openai-server.js';
import { messagesOf, reply, type RoleStep } from './workflow-run.js';

/** Model ids per tier for the scenario: the three implementers run on three different models. */
export const TIER_MODELS = { TROUPE_MODEL_BASE: 'model-a', TROUPE_MODEL_SMART: 'model-b', TROUPE_MODEL_FAST: 'model-c' };

/** What implementer `x` (a, b or c) writes: a marked first version, then a revision. */
export const implFile = (x: string, version: 1 | 2) => `// impl_${x} v${version}\npub fn encode() []const u8 { return "bc1-${x}-v${version}"; }\n${version === 2 ? `test "checksum ${x}" {}\n` : ''}`;

const afterTool = (req: RecordedRequest) => messagesOf(req).at(-1)?.role === 'tool';
const revising = (req: RecordedRequest) => messagesOf(req).some((m) => m.role === 'user' && m.content?.startsWith('Revise your implementation'));

/**
 * An implementer: writes bech32.zig with write_file (v1, or v2 when asked to revise), then answers with
 * a summary once the tool's result comes back; each reply delayed by `delayMs`, so branches overlap.
 */
export function implementerReply(x: string, req: RecordedRequest, delayMs = 0): FakeReply {
  const version = revising(req) ? 2 : 1;
  if (afterTool(req)) return reply(`impl_${x}: bech32.zig v${version} written${version === 2 ? ', checksum test added' : ''}.`, undefined, { delayMs });
  return reply('', { name: 'write_file', arguments: { path: 'bech32.zig', content: implFile(x, version) } }, { delayMs });
}

/** Implementer `x`'s script: every call answered by implementerReply. */
export const implementer = (x: string, delayMs: number): RoleStep[] => [(req) => implementerReply(x, req, delayMs)];

const verdict = (text: string, agree: boolean, approve: boolean, feedback: string, ranking = ['impl_a', 'impl_b', 'impl_c']): FakeReply =>
  reply(text, { name: 'review_verdict', arguments: { agree, approve, feedback, ranking } });

/** The two reviewers: a first debate of two rounds (A disagrees, then both agree: revise), then a second that approves at once. */
export const reviewerScripts: Record<string, RoleStep[]> = {
  reviewer_a: [
    verdict('impl_a is cleanest; none tests the checksum.', false, false, 'add a checksum test to every implementation'),
    verdict('Agreed with B: checksum tests, then ship.', true, false, 'add a checksum test to every implementation'),
    verdict('The revision adds the tests.', true, true, 'ready'),
  ],
  reviewer_b: [
    verdict('I would approve impl_a as is.', true, false, 'impl_a is fine'),
    verdict('Fine, tests first.', true, false, 'add checksum tests'),
    verdict('Approved.', true, true, 'ready', ['impl_a', 'impl_c', 'impl_b']),
  ],
};
