import { describe, expect, it } from 'vitest';
import { formatImplementationsForReview } from '../../../src/workflow/run/review-format.js';

describe('formatImplementationsForReview', () => {
  it("renders each implementer's summary, changed files and diff, and says which failed", () => {
    const text = formatImplementationsForReview([
      {
        id: 'agent1',
        agent: 'coder_a',
        text: 'Implemented encode and decode with the BIP test vectors.\n',
        changes: { files: [{ path: 'src/bech32.zig', status: 'added' }], diff: '--- /dev/null\n+++ b/src/bech32.zig\n@@ -0,0 +1,1 @@\n+pub fn encode() void {}\n' },
      },
      { id: 'agent2', agent: 'agent2', error: 'timed out after 600000 ms' },
      { id: 'agent3', text: 'Nothing to change.', changes: { files: [], diff: '' } },
    ]);
    expect(text).toBe(
      [
        '## Implementation 1 of 3: agent1 (coder_a)',
        '',
        '### Summary',
        '',
        'Implemented encode and decode with the BIP test vectors.',
        '',
        '### Files changed (1)',
        '',
        '- added src/bech32.zig',
        '',
        '### Diff',
        '',
        '```diff',
        '--- /dev/null',
        '+++ b/src/bech32.zig',
        '@@ -0,0 +1,1 @@',
        '+pub fn encode() void {}',
        '```',
        '',
        '## Implementation 2 of 3: agent2',
        '',
        'This implementation failed: timed out after 600000 ms',
        '',
        '### Summary',
        '',
        '(no summary given)',
        '',
        '### Changes',
        '',
        '(no workspace changes recorded)',
        '',
        '## Implementation 3 of 3: agent3',
        '',
        '### Summary',
        '',
        'Nothing to change.',
        '',
        '### Files changed (0)',
        '',
        '(no files changed)',
        '',
      ].join('\n'),
    );
  });

  it('a diff holding a code fence gets a longer fence', () => {
    const diff = '--- a/README.md\n+++ b/README.md\n@@ -1,1 +1,3 @@\n+```sh\n+zig build test\n+```\n';
    const text = formatImplementationsForReview([{ id: 'a', text: 'docs', changes: { files: [{ path: 'README.md', status: 'modified' }], diff } }]);
    expect(text).toContain('````diff\n--- a/README.md');
    expect(text.trimEnd().endsWith('+```\n````')).toBe(true);
  });

  it('says when there is nothing to review', () => {
    expect(formatImplementationsForReview([])).toBe('(no implementations to review)');
  });
});
