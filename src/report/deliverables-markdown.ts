import type { Deliverables } from './deliverables.js';

/** A code fence longer than any run of backticks in the text, so the text cannot close it. */
export function fenceFor(text: string): string {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  return '`'.repeat(longest + 1);
}

const quote = (text: string) => text.split('\n').map((l) => `> ${l}`);
const cell = (text: string) => text.replace(/\|/g, '\\|').replace(/\n/g, ' ');

/** The output as Markdown: text as it is, anything else as a JSON block. */
function outputLines(output: unknown): string[] {
  if (typeof output === 'string') return [output];
  const json = JSON.stringify(output, null, 2) ?? 'null';
  const fence = fenceFor(json);
  return [`${fence}json`, json, fence];
}

/** The deliverables document as Markdown (`## Deliverables` and its sections): what `troupe export` writes; `brief: false` leaves out the brief (the export has it already). */
export function deliverablesMarkdown(d: Deliverables, options: { brief?: boolean } = {}): string[] {
  const out: string[] = ['## Deliverables', ''];
  out.push(`| field | value |`, '| --- | --- |');
  const fields: [string, string][] = [
    [d.kind === 'workflow' ? 'workflow' : 'team', d.definition],
    ['status', d.endReason ? `${d.status}: ${d.endReason}` : d.status],
  ];
  if (d.forkedFrom) fields.push(['forked from', `${d.forkedFrom.id} at step ${d.forkedFrom.step}`]);
  for (const [k, v] of fields) out.push(`| ${k} | ${cell(v)} |`);
  out.push('');
  if (options.brief !== false) out.push(`### ${d.kind === 'workflow' ? 'Input' : 'Brief'}`, '', ...quote(d.brief || '(none)'), '');
  if (d.output !== null) out.push('### Output', '', ...outputLines(d.output), '');
  const { pinned, approvals, verdicts, debates } = d.decisions;
  if (pinned.length + approvals.length + verdicts.length + debates.length > 0) {
    out.push('### Decisions', '');
    for (const p of pinned) out.push(`- ${p.by}: ${p.text}`);
    for (const a of approvals) out.push(`- turn ${a.turn}: ${a.by} ${a.status === 'APPROVED' ? 'approved' : 'sent back'} ${a.of}${a.reason ? ` — ${a.reason}` : ''}`);
    for (const v of verdicts) out.push(`- ${v.state} round ${v.round}: ${v.reviewer} ${v.agree ? 'agrees' : 'does not agree'}, ${v.approve ? 'approves' : 'wants changes'} — ${v.feedback}`);
    for (const b of debates)
      out.push(`- debate in ${b.state}: ${b.rounds} round(s), ${b.consensus ? 'consensus' : b.synthesised ? 'synthesised' : 'no consensus'}, ${b.approve ? 'approved' : 'changes requested'}`);
    out.push('');
  }
  if (d.finals.length > 0) {
    out.push('### Final texts', '');
    for (const f of d.finals) out.push(`#### ${f.name}${f.branch ? ` [${f.branch}]` : ''} (turn ${f.turn})`, '', f.text || '_(no text)_', '');
  }
  if (d.workspaces.length > 0) {
    out.push('### Workspaces', '');
    for (const w of d.workspaces) {
      out.push(`#### ${w.name}${w.persona ? ` · ${w.persona}` : ''}`, '', `- files: ${w.dir ?? '(no longer on disk)'}`);
      for (const f of w.files) out.push(`- ${f.status} \`${f.path}\``);
      if (w.files.length === 0) out.push('- no changed files reported');
      if (w.diff.trim() !== '') {
        const fence = fenceFor(w.diff);
        out.push('', `${fence}diff`, w.diff.replace(/\n$/, ''), fence);
      }
      out.push('');
    }
  }
  return out;
}
