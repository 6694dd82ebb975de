import type React from 'react';
import { Text } from 'ink';
import type { MemoryView } from '../commands/memory-source.js';
import { formatCost, formatTokens, tokensOf } from '../usage/format.js';
import type { SessionUsage } from '../usage/session-usage.js';

/** Props of the footer. */
export interface FooterProps {
  turn: number;
  turnBudget: number;
  /** The session's usage (the meter's totals, as `!cost` and the run summary read them). */
  usage: SessionUsage;
  /** Null when the session runs without summarising memory. */
  memory: MemoryView | null;
}

/** Turn n/max, tokens, cost and memory (summaries and pinned decisions). */
export function Footer({ turn, turnBudget, usage, memory }: FooterProps): React.JSX.Element {
  const mem = memory ? `${memory.summaries.length} summaries, ${memory.pinned.length} pinned` : 'off';
  return (
    <Text dimColor wrap="truncate-end">
      turn {turn}/{turnBudget} · tokens {formatTokens(tokensOf(usage.session))} · cost {formatCost(usage.session, usage)} · memory {mem}
    </Text>
  );
}
