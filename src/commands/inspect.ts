import type { MachineDefinition } from '../engine/definition.js';
import type { SessionState } from '../engine/session.js';
import type { TroupeEvent } from '../engine/event-map.js';
import type { Decision } from '../arbiter/proposal.js';
import { decisionLine } from '../report/decisions.js';
import { displayName, formatPath } from '../report/names.js';
import { helpLines } from './catalog.js';
import { memoryLines, type MemorySource } from './memory-source.js';
import type { InspectName } from './parse.js';
import { situation, situationLine } from './situation.js';
import { formatCost, type UsageTotals } from './usage-meter.js';
import { cacheHitLine, type CacheCounts } from '../usage/cache-rate.js';

/** What the inspection commands read. */
export interface InspectSources {
  def: MachineDefinition;
  session: SessionState;
  /** The newest events (a bounded window of the session's log). */
  events: readonly TroupeEvent[];
  usage: UsageTotals;
  memory?: MemorySource | undefined;
  /** The session's model costs nothing (the offline demo). */
  free?: boolean;
}

function statusLines({ def, session: s }: InspectSources): string[] {
  const sit = situation(def, s);
  const lines = [
    `state: ${situationLine(sit)}`,
    `now: ${sit.status}`,
    `mode: ${s.mode.toUpperCase()} · approval gates: ${def.team?.approval ?? 'auto'} · turn ${s.turn}/${s.turnBudget}`,
  ];
  const r = s.routing;
  if (r?.history.length) lines.push(`handed over by: ${r.history.map((id) => displayName(def, id)).join(' › ')}`);
  if (r) lines.push(`approvals: ${r.approved} · reworks: ${r.sentBack}`);
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

// Usage totals that count cached prompt tokens (from `usage` events carrying `cached_tokens`) show the hit rate.
function costLines({ def, usage, free = false }: InspectSources & { usage: Partial<CacheCounts> }): string[] {
  if (usage.calls === 0) return ['no model calls yet'];
  const lines = usage.byPersona.map((l) => `${(l.who === 'summary' ? 'memory summaries' : displayName(def, l.who)).padEnd(18)} ${String(l.calls).padStart(3)} call(s) ${String(l.tokens).padStart(8)} tokens  cost ${formatCost(l.cost, free)}`);
  lines.push(`${'total'.padEnd(18)} ${String(usage.calls).padStart(3)} call(s) ${String(usage.tokens).padStart(8)} tokens  cost ${formatCost(usage.cost, free)}`);
  if (usage.cost === null && !free) lines.push('no price for the model: add it to pricing.json (or a file named by TROUPE_PRICES) to see its cost');
  const cache = usage.cacheReported ? cacheHitLine({ cachedTokens: usage.cachedTokens ?? 0, cacheReported: usage.cacheReported, cacheablePromptTokens: usage.cacheablePromptTokens ?? 0 }) : null;
  if (cache) lines.push(cache);
  return lines;
}

function branchLines({ def, session: s, events }: InspectSources): string[] {
  const frame = s.workflow?.frames.at(-1);
  const name = (id: string) => displayName(def, id);
  const lines: string[] = [];
  if (frame?.branches) {
    lines.push(`${frame.state}: running now`);
    for (const [id, b] of Object.entries(frame.branches)) lines.push(`  ${id} · ${name(b.agent)} · ${b.status}${b.error ? ` — ${b.error}` : ''}${b.changes ? ` · ${b.changes.files.length} file(s) changed` : ''}`);
  }
  // Finished fan-outs: their results are in common_data under the parallel state's `into`.
  for (const e of events) {
    if (e.type === 'joined') lines.push(`${e.state}: joined · done ${e.done.join(', ') || 'none'}${e.failed.length ? ` · failed ${e.failed.map((f) => `${f.branch} (${f.error})`).join(', ')}` : ''} · ${e.outcome === 'continue' ? 'went on' : 'the state failed'}`);
    if (e.type === 'tool_call' && e.phase === 'finished' && e.branch && (e.tool === 'write_file' || e.tool === 'edit_file')) lines.push(`  ${e.branch}: ${e.summary}${e.ok ? '' : ' (failed)'}`);
  }
  return lines.length ? lines : ['no parallel branches in this session (yet)'];
}

function debateLines({ def, session: s, events }: InspectSources): string[] {
  const name = (id: string) => displayName(def, id);
  const lines: string[] = [];
  for (const e of events) {
    if (e.type === 'verdict') lines.push(`round ${e.round} · ${name(e.reviewer)}: ${e.agree ? 'agrees' : 'does not agree'}, ${e.approve ? 'approves' : 'wants changes'} — ${e.feedback}`);
    if (e.type === 'debate_ended') lines.push(`${e.state}: over after ${e.rounds} round(s) — ${e.consensus ? 'consensus' : e.synthesised ? 'no consensus; synthesised' : 'no consensus'}, ${e.approve ? 'approved' : 'changes requested'}`);
  }
  const debate = s.workflow?.frames.at(-1)?.debate;
  if (debate) lines.push(`now: round ${debate.round + 1}${debate.synthesising ? ', the synthesiser writes the consensus' : `, ${name(s.inFlight?.persona ?? '')} is answering`}`);
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
