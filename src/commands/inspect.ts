import type { MachineDefinition } from '../engine/definition.js';
import type { SessionState } from '../engine/session.js';
import { displayName, formatPath } from '../runtime/format.js';
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
  usage: UsageTotals;
  memory?: MemorySource | undefined;
  /** The stored sessions as table lines (absent when the session is not stored). */
  sessions?: (() => string[]) | undefined;
}

function statusLines({ def, session: s }: InspectSources): string[] {
  const sit = situation(def, s);
  const lines = [
    `state: ${situationLine(sit)}`,
    `now: ${sit.status}`,
    `mode: ${s.mode.toUpperCase()} · approval gates: ${def.approval} · turn ${s.turn}/${s.turnBudget}`,
  ];
  if (s.history.length) lines.push(`handed over by: ${s.history.map((id) => displayName(def, id)).join(' › ')}`);
  const mine = s.approvals.filter((a) => a.status === 'APPROVED').length;
  lines.push(`approvals: ${mine} · reworks: ${s.approvals.length - mine}`);
  return lines;
}

function historyLines({ def, session: s }: InspectSources): string[] {
  if (s.transitions.length === 0) return ['no transitions yet'];
  return s.transitions.flatMap((t) => [
    `turn ${t.turn}: ${formatPath(def, t.from)} -> ${formatPath(def, t.to)} [${t.kind}] ${t.reason}`,
    ...(t.arbitration ? [`  arbiter: ${t.arbitration}`] : []),
  ]);
}

// Usage totals that count cached prompt tokens (from `usage` events carrying `cached_tokens`) show the hit rate.
function costLines({ def, usage }: InspectSources & { usage: Partial<CacheCounts> }): string[] {
  if (usage.calls === 0) return ['no model calls yet'];
  const lines = usage.byPersona.map((l) => `${(l.who === 'summary' ? 'memory summaries' : displayName(def, l.who)).padEnd(18)} ${String(l.calls).padStart(3)} call(s) ${String(l.tokens).padStart(8)} tokens  ${formatCost(l.cost)}`);
  lines.push(`${'total'.padEnd(18)} ${String(usage.calls).padStart(3)} call(s) ${String(usage.tokens).padStart(8)} tokens  ${formatCost(usage.cost)}`);
  if (usage.cost === null) lines.push('cost n/a: the model server reports no prices');
  const cache = usage.cacheReported ? cacheHitLine({ cachedTokens: usage.cachedTokens ?? 0, cacheReported: usage.cacheReported, cacheablePromptTokens: usage.cacheablePromptTokens ?? 0 }) : null;
  if (cache) lines.push(cache);
  return lines;
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
    case 'sessions':
      return { title: 'sessions', lines: sources.sessions ? sources.sessions() : ['sessions are not stored in this run'] };
    case 'help':
      return { title: 'commands', lines: helpLines() };
  }
}
