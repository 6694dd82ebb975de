import type { MachineDefinition } from '../engine/definition.js';
import type { TroupeEvent } from '../engine/event-map.js';
import type { SessionState } from '../engine/session.js';
import type { JournalRecord, SessionDocument } from '../store/session-file.js';
import { unreplayedInputLines } from './unreplayed-inputs.js';
import { listingOf } from '../store/listing.js';
import { checkEvents } from './checked-events.js';
import { decisionLine, transitionHistory } from './decisions.js';
import { eventLines } from './event-lines.js';
import { displayName, formatPath } from './names.js';
import { sessionStatus } from './sessions-table.js';
import { transcriptOf } from '../memory/transcript.js';
import type { Deliverables } from './deliverables.js';
import { deliverablesMarkdown } from './deliverables-markdown.js';

/** A stored session as the reports read it: its document, its whole event log, and its state as the journal ends (see stateAtJournalEnd; else the checkpoint's). */
export interface StoredSessionReport {
  doc: SessionDocument;
  events: readonly TroupeEvent[];
  state?: SessionState;
  /** The journal's records (what their inputs say is shown for the steps whose events could not be replayed). */
  records?: readonly JournalRecord[];
  /** Why the events of some steps are not among `events` (see ReadSession.replayGap). */
  replayGap?: string;
}

/** The steps whose events are not shown, as their inputs tell them: the one line why, then a line per step (none when every step's events are there). */
function gapLines(r: StoredSessionReport): { note: string | null; steps: string[] } {
  if (!r.replayGap) return { note: null, steps: [] };
  return { note: r.replayGap, steps: unreplayedInputLines(r.records ?? []) };
}

/** What a session runs, as its header names it: the workflow (no mode: a workflow has none), or the team and its mode. */
function runs(doc: SessionDocument): string {
  return doc.workflow ? `workflow ${doc.workflow.name}` : `${doc.team.name} · ${doc.mode.toUpperCase()}`;
}

function header(r: StoredSessionReport): string[] {
  const listing = listingOf(r.doc, { state: r.state });
  return [`session ${r.doc.id} · ${runs(r.doc)} · ${r.doc.model}`, `created ${r.doc.createdAt} · updated ${r.doc.updatedAt} · ${listing.turns} turns · ${sessionStatus({ listing, lockedBy: null })}`];
}

function approvalLines(events: readonly TroupeEvent[], def: MachineDefinition, bullet: string): string[] {
  let turn = 0;
  const out: string[] = [];
  for (const e of events) {
    if (e.type === 'agent_message') turn = e.turn;
    if (e.type !== 'approval') continue;
    out.push(`${bullet}turn ${turn}: ${displayName(def, e.by)} ${e.status === 'APPROVED' ? 'approved' : 'sent back'} ${displayName(def, e.of)}${e.reason ? ` — ${e.reason}` : ''}`);
  }
  return out;
}

/** `troupe show`: the transcript told by the event log, every transition with its arbitration, the approvals. */
export function renderShow(r: StoredSessionReport, def: MachineDefinition): string[] {
  const { events, skipped } = checkEvents(r.events);
  const gap = gapLines(r);
  const lines = [...header(r), ...(gap.note ? [`! ${gap.note}`] : []), ...skipped.map((s) => `! ${s}`), ''];
  const toLines = eventLines(def);
  for (const e of events) lines.push(...toLines(e));
  if (gap.steps.length > 0) lines.push('', 'Steps whose events are not shown (their inputs):', ...gap.steps.map((l) => `  ${l}`));
  lines.push('', 'Decisions:');
  transitionHistory(events).forEach((h, i) => {
    lines.push(`${String(i + 1).padStart(3)}. ${formatPath(def, h.from)} -> ${formatPath(def, h.to)} [${h.kind}] ${h.reason}`);
    if (h.decision && h.decision.proposals.length > 0) lines.push(`     arbiter: ${decisionLine(h.decision, (id) => displayName(def, id))}`);
  });
  const approvals = approvalLines(events, def, '  ');
  if (approvals.length > 0) lines.push('', 'Approvals:', ...approvals);
  return lines;
}

/**
 * `troupe export --format md`: the session as a Markdown document: its fields, the deliverables (when given:
 * output, decisions, final texts, workspaces with their diffs), the transcript, the decisions and approvals.
 */
export function renderMarkdown(r: StoredSessionReport, def: MachineDefinition, deliverables?: Deliverables): string {
  const { events, skipped } = checkEvents(r.events);
  const listing = listingOf(r.doc, { state: r.state });
  const workflow = r.doc.workflow !== undefined;
  const out: string[] = [`# troupe session ${r.doc.id}`, ''];
  const gap = gapLines(r);
  if (gap.note) out.push(`> **note:** ${gap.note}`, '', ...gap.steps.map((l) => `- ${l}`), '');
  if (skipped.length > 0) out.push(...skipped.map((line) => `> **note:** ${line}`), '');
  out.push('| field | value |', '| --- | --- |');
  const fields: [string, string][] = workflow
    ? [['workflow', r.doc.workflow!.name]]
    : [
        ['team', r.doc.team.name],
        ['mode', r.doc.mode],
      ];
  fields.push(['model', r.doc.model], ['status', sessionStatus({ listing, lockedBy: null })], ['turns', String(listing.turns)], ['created', r.doc.createdAt], ['updated', r.doc.updatedAt]);
  if (r.doc.forkedFrom) fields.push(['forked from', `${r.doc.forkedFrom.id} at step ${r.doc.forkedFrom.step}`]);
  for (const [k, v] of fields) out.push(`| ${k} | ${v.replace(/\|/g, '\\|')} |`);
  out.push('', workflow ? '## Input' : '## Brief', '', ...r.doc.brief.split('\n').map((l) => `> ${l}`), '');
  if (deliverables) out.push(...deliverablesMarkdown(deliverables, { brief: false }));
  out.push('## Transcript', '');
  for (const t of transcriptOf(events)) {
    if (t.kind === 'user') out.push(`**You:** ${t.text}`, '');
    else if (t.kind === 'note') out.push(`> _note: ${t.text}_`, '');
    else {
      const where = t.path ? formatPath(def, t.path) : displayName(def, t.persona ?? '');
      // A workflow's turns carry no directive: only a cut-off turn is marked.
      const mark = t.status === 'aborted' || (!workflow && t.status && t.status !== 'ok') ? ` (${t.status})` : '';
      out.push(`### Turn ${t.turn} · ${where}${mark}`, '', t.text || '_(no text)_', '');
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
  const approvals = approvalLines(events, def, '- ');
  if (approvals.length > 0) out.push('', '## Approvals', '', ...approvals);
  return `${out.join('\n')}\n`;
}
