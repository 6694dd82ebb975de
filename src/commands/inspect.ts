import { join } from 'node:path';
import type { MachineDefinition } from '../engine/definition.js';
import type { SessionState } from '../engine/session.js';
import type { TroupeEvent } from '../engine/event-map.js';
import type { Decision } from '../arbiter/proposal.js';
import { decisionLine } from '../report/decisions.js';
import { displayNames, eventWords } from '../report/display-items.js';
import { displayName, formatPath, payerName } from '../report/names.js';
import { helpLines } from './catalog.js';
import { memoryLines, type MemorySource } from './memory-source.js';
import type { InspectName } from './parse.js';
import { situation, situationLine } from './situation.js';
import { cacheHitLine, cacheShare } from '../usage/cache-rate.js';
import { formatCost, tokensOf } from '../usage/format.js';
import type { SessionUsage } from '../usage/session-usage.js';
import { noPriceLine } from '../usage/summary.js';
import type { UsageTotals } from '../usage/usage-meter.js';
import { predictionLine, warmingCostLine, type WarmingView } from '../warming/warming-view.js';

/** What the inspection commands read. */
export interface InspectSources {
  def: MachineDefinition;
  session: SessionState;
  /** The newest events (a bounded window of the session's log). */
  events: readonly TroupeEvent[];
  /** The session's usage (the meter's totals). */
  usage: SessionUsage;
  memory?: MemorySource | undefined;
  /** Where the session's agents' workspaces are (`<root>/workspaces/<branch>`), when known. */
  workspaceRoot?: string | null | undefined;
  /** The session's state warming (null or absent: off, or not a team session). */
  warming?: WarmingView | null | undefined;
}

function statusLines({ def, session: s, warming }: InspectSources): string[] {
  const sit = situation(def, s);
  const lines = [`state: ${situationLine(sit)}`, `now: ${sit.status}`, `mode: ${s.mode.toUpperCase()} · approval gates: ${def.team?.approval ?? 'auto'} · turn ${s.turn}/${s.turnBudget}`];
  const r = s.routing;
  if (r?.history.length) lines.push(`handed over by: ${r.history.map((id) => displayName(def, id)).join(' › ')}`);
  if (r) lines.push(`approvals: ${r.approved} · reworks: ${r.sentBack}`);
  const predicted = predictionLine(warming ?? null, s.inFlight?.turnId, (id) => displayName(def, id));
  if (predicted) lines.push(predicted);
  return lines;
}

function historyLines({ def, events }: InspectSources): string[] {
  const name = (id: string) => displayName(def, id);
  const lines: string[] = events.length > 0 && events[0]!.seq > 1 ? ['(older transitions: troupe show <id>)'] : [];
  let turn = 0;
  let decision: Decision | null = null;
  for (const e of events) {
    if (e.type === 'agent_message') turn = e.turn;
    if (e.type === 'arbitration') decision = e.decision;
    if (e.type !== 'transition') continue;
    lines.push(`turn ${turn}: ${formatPath(def, e.from)} -> ${formatPath(def, e.to)} [${e.kind}] ${e.reason}`);
    if (decision && decision.proposals.length > 0) lines.push(`  arbiter: ${decisionLine(decision, name)}`);
    decision = null;
  }
  return lines.some((l) => l.startsWith('turn ')) ? lines : ['no transitions yet'];
}

function costLine(label: string, t: UsageTotals, usage: SessionUsage): string {
  const cached = cacheShare(t);
  return `${label.padEnd(18)} ${String(t.calls).padStart(3)} call(s) ${String(tokensOf(t)).padStart(8)} tokens  cost ${formatCost(t, usage)}${cached ? `  ${cached}` : ''}`;
}

// The meter's totals: the same figures as the footer, the run summary and the API.
function costLines({ def, usage, warming }: InspectSources): string[] {
  if (usage.session.calls === 0) return ['no model calls yet'];
  const lines = Object.entries(usage.byPersona).map(([who, t]) => costLine(payerName(def, who), t, usage));
  lines.push(costLine('total', usage.session, usage));
  if (!usage.free) lines.push(...usage.unpricedModels.map((model) => noPriceLine(model, usage.priceSource)));
  const cache = cacheHitLine(usage.session);
  if (cache) lines.push(cache);
  const warmed = warmingCostLine(warming ?? null, usage);
  if (warmed) lines.push(warmed);
  return lines;
}

function branchLines({ def, session: s, events, workspaceRoot }: InspectSources): string[] {
  const frame = s.workflow?.frames.at(-1);
  const name = (id: string) => displayName(def, id);
  const names = displayNames(def);
  const lines: string[] = [];
  // A branch that ran tools worked in its own workspace, named after it.
  const tooled = new Set(events.flatMap((e) => (e.type === 'tool_call' && e.branch ? [e.branch] : [])));
  const where = (branch: string) => (workspaceRoot && tooled.has(branch) ? ` · files in ${join(workspaceRoot, 'workspaces', branch)}` : '');
  if (frame?.branches) {
    lines.push(`${frame.state}: running now`);
    for (const [id, b] of Object.entries(frame.branches))
      lines.push(`  ${id} · ${name(b.agent)} · ${b.status}${b.error ? ` — ${b.error}` : ''}${b.changes ? ` · ${b.changes.files.length} file(s) changed` : ''}${where(id)}`);
  }
  // Finished fan-outs (their results are in common_data under the parallel state's `into`) and the files branches wrote, worded as the transcript words them.
  for (const e of events) {
    if (e.type === 'joined') {
      lines.push(...eventWords(e, names));
      for (const branch of e.done) if (where(branch)) lines.push(`  ${branch}${where(branch)}`);
    }
    if (e.type === 'tool_call' && e.phase === 'finished' && e.branch && (e.tool === 'write_file' || e.tool === 'edit_file')) lines.push(...eventWords(e, names).map((l) => `  ${l}`));
  }
  return lines.length ? lines : ['no parallel branches in this session (yet)'];
}

function debateLines({ def, session: s, events }: InspectSources): string[] {
  const names = displayNames(def);
  const lines = events.flatMap((e) => (e.type === 'verdict' || e.type === 'debate_ended' ? eventWords(e, names) : []));
  const debate = s.workflow?.frames.at(-1)?.debate;
  if (debate) lines.push(`now: round ${debate.round + 1}${debate.synthesising ? ', the synthesiser writes the consensus' : `, ${displayName(def, s.inFlight?.persona ?? '')} is answering`}`);
  return lines.length ? lines : ['no debate in this session (yet)'];
}

/** The title and lines an inspection command prints. */
export function inspect(name: InspectName, sources: InspectSources): { title: string; lines: string[] } {
  switch (name) {
    case 'status':
      return { title: 'status', lines: statusLines(sources) };
    case 'history':
      return { title: 'history', lines: historyLines(sources) };
    case 'memory':
      return { title: 'memory', lines: memoryLines(sources.memory) };
    case 'cost':
      return { title: 'cost', lines: costLines(sources) };
    case 'help':
      return { title: 'commands', lines: helpLines() };
    case 'branches':
      return { title: 'branches', lines: branchLines(sources) };
    case 'debate':
      return { title: 'debate', lines: debateLines(sources) };
    case 'sessions':
      // Read from the store by the caller (execute.ts), since listing is asynchronous.
      return { title: 'sessions', lines: [] };
  }
}
