import type { MachineDefinition } from '../engine/definition.js';
import { TroupeBus } from '../runtime/bus.js';
import { displayName, formatPath } from '../runtime/format.js';
import { attachTranscriptPrinter } from '../runtime/transcript-printer.js';
import { checkEvents } from './event-schema.js';
import { decisionLine, transitionHistory } from './history.js';
import type { SessionFile } from './session-file.js';
import { summarise } from './summary.js';

/** A stand-in definition when the session's team directory cannot be loaded: paths and ids print as stored. */
export function bareDefinition(file: SessionFile): MachineDefinition {
  const userPath = file.snapshot.transitions.map((t) => t.to).find((p) => p.endsWith('.user')) ?? 'USER_INTERACTION.user';
  return { name: file.team.name, agents: [], majors: [], userPath } as unknown as MachineDefinition;
}

function header(file: SessionFile): string[] {
  const sum = summarise(file, null);
  return [
    `session ${file.id} · ${file.team.name} · ${file.mode.toUpperCase()} · ${file.model}`,
    `created ${file.createdAt} · updated ${file.updatedAt} · ${sum.turns} turns · ${sum.status}`,
  ];
}

/** `troupe show`: the transcript replayed from the event log, then every transition with its arbitration. */
export function renderShow(file: SessionFile, def: MachineDefinition): string[] {
  const { events, skipped } = checkEvents(file.events);
  const lines = [...header(file), ...skipped.map((s) => `! ${s}`), ''];
  const bus = new TroupeBus(file.id);
  attachTranscriptPrinter(bus, def, (l) => lines.push(l));
  for (const e of events) bus.emit('*', e);
  lines.push('', 'Decisions:');
  transitionHistory(events).forEach((h, i) => {
    lines.push(`${String(i + 1).padStart(3)}. ${formatPath(def, h.from)} -> ${formatPath(def, h.to)} [${h.kind}] ${h.reason}`);
    if (h.decision && h.decision.proposals.length > 0) lines.push(`     arbiter: ${decisionLine(h.decision, (id) => displayName(def, id))}`);
  });
  const approvals = file.snapshot.approvals;
  if (approvals.length > 0) {
    lines.push('', 'Approvals:');
    for (const a of approvals) lines.push(`  turn ${a.turn}: ${displayName(def, a.by)} ${a.status === 'APPROVED' ? 'approved' : 'sent back'} ${displayName(def, a.of)}${a.reason ? ` — ${a.reason}` : ''}`);
  }
  return lines;
}

/** `troupe export --format md`: the session as a Markdown document. */
export function renderMarkdown(file: SessionFile, def: MachineDefinition): string {
  const s = file.snapshot;
  const sum = summarise(file, null);
  const { events, skipped } = checkEvents(file.events);
  const out: string[] = [`# troupe session ${file.id}`, ''];
  if (skipped.length > 0) out.push(...skipped.map((line) => `> **note:** ${line}`), '');
  out.push('| field | value |', '| --- | --- |');
  for (const [k, v] of [['team', file.team.name], ['mode', file.mode], ['model', file.model], ['status', sum.status], ['turns', String(sum.turns)], ['created', file.createdAt], ['updated', file.updatedAt]] as const) {
    out.push(`| ${k} | ${v.replace(/\|/g, '\\|')} |`);
  }
  out.push('', '## Brief', '', ...file.brief.split('\n').map((l) => `> ${l}`), '', '## Transcript', '');
  for (const t of s.transcript) {
    if (t.kind === 'user') out.push(`**You:** ${t.text}`, '');
    else if (t.kind === 'note') out.push(`> _note: ${t.text}_`, '');
    else {
      const where = t.path ? formatPath(def, t.path) : displayName(def, t.persona ?? '');
      out.push(`### Turn ${t.turn} · ${where}${t.status && t.status !== 'ok' ? ` (${t.status})` : ''}`, '', t.text || '_(no text)_', '');
      const d = t.directive;
      if (d) {
        out.push(`*Directive:* \`${d.transition}\`${d.next_agent ? ` → ${d.next_agent}` : ''}${d.rework_reason ? ` — rework: ${d.rework_reason}` : ''}`, '');
        for (const k of d.key_decisions ?? []) out.push(`- decision: ${k}`);
        if (d.key_decisions?.length) out.push('');
      }
    }
  }
  out.push('## Decisions', '');
  transitionHistory(events).forEach((h, i) => {
    out.push(`${i + 1}. \`${h.from}\` → \`${h.to}\` (${h.kind}): ${h.reason}`);
    if (h.decision && h.decision.proposals.length > 0) out.push(`   - arbiter: ${decisionLine(h.decision, (id) => displayName(def, id))}`);
  });
  if (s.approvals.length > 0) {
    out.push('', '## Approvals', '');
    for (const a of s.approvals) out.push(`- turn ${a.turn}: ${displayName(def, a.by)} ${a.status === 'APPROVED' ? 'approved' : 'sent back'} ${displayName(def, a.of)}${a.reason ? ` — ${a.reason}` : ''}`);
  }
  return `${out.join('\n')}\n`;
}
