import React from 'react';
import { Text } from 'ink';
import { formatCost, formatTokens, type UsageTotals } from '../commands/usage-meter.js';
import type { MemoryView } from '../commands/memory-source.js';

/** Props of the footer. */
export interface FooterProps {
  turn: number;
  turnBudget: number;
  usage: UsageTotals;
  /** Null when the session runs without summarising memory. */
  memory: MemoryView | null;
  offline: boolean;
}

/** Turn n/max, tokens, cost and memory (summaries and pinned decisions). */
export function Footer({ turn, turnBudget, usage, memory, offline }: FooterProps): React.JSX.Element {
  const cost = formatCost(usage.cost, offline);
  const mem = memory ? `${memory.summaries.length} summaries, ${memory.pinned.length} pinned` : 'off';
  return (
    <Text dimColor wrap="truncate-end">
      turn {turn}/{turnBudget} · tokens {formatTokens(usage.tokens)} · cost {cost} · memory {mem}
    </Text>
  );
}
