import type { Code, StatePlan, WorkflowPlan } from './run/plan.js';

const MAX_LABEL = 72;

function label(code: Code | null): string {
  if (!code) return '';
  const text = code.kind === 'handler' ? `${code.name}()` : code.source.replace(/\s+/g, ' ').trim();
  const short = text.length > MAX_LABEL ? `${text.slice(0, MAX_LABEL - 1)}…` : text;
  // Mermaid ends a label at a colon-free line; quotes and braces would break its parser.
  return short
    .replace(/["{}:;]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function id(prefix: string, name: string): string {
  return `${prefix}${name}`.replace(/[^A-Za-z0-9_]/g, '_');
}

function body(plan: WorkflowPlan, prefix: string, indent: string, lines: string[], depth: number): void {
  const names = new Set(plan.states.map((s) => s.name));
  const node = (name: string) => (names.has(name) ? id(prefix, name) : '[*]');
  lines.push(`${indent}[*] --> ${id(prefix, plan.start)}`);
  for (const s of plan.states) {
    const sid = id(prefix, s.name);
    lines.push(`${indent}${sid}: ${describe(s)}`);
    if (s.subWorkflow && plan.subWorkflows[s.subWorkflow.name] && depth < 4) {
      lines.push(`${indent}state ${sid} {`);
      body(plan.subWorkflows[s.subWorkflow.name]!, `${sid}__`, `${indent}  `, lines, depth + 1);
      lines.push(`${indent}}`);
    }
    if (s.parallel) {
      lines.push(`${indent}state ${sid} {`);
      s.parallel.branches.forEach((b, i) => {
        if (i > 0) lines.push(`${indent}  --`);
        lines.push(`${indent}  ${id(`${sid}__`, b.id)}: ${b.id} (${b.agent})`);
      });
      lines.push(`${indent}}`);
    }
    for (const t of s.transitions) lines.push(`${indent}${sid} --> ${node(t.target)}${t.condition ? `: ${label(t.condition)}` : ''}`);
    if (s.decide) lines.push(`${indent}note right of ${sid}: next state chosen by ${label(s.decide)}`);
    if (s.final || (s.transitions.length === 0 && !s.decide)) lines.push(`${indent}${sid} --> [*]`);
  }
  if (plan.errorHandler) lines.push(`${indent}note left of ${id(prefix, plan.errorHandler)}: errors go here`);
}

function describe(s: StatePlan): string {
  if (s.agent) return `${s.name} · ${s.agent}`;
  if (s.subWorkflow) return `${s.name} · runs ${s.subWorkflow.name}`;
  if (s.parallel) return `${s.name} · ${s.parallel.branches.length} branches, join ${typeof s.parallel.join === 'string' ? s.parallel.join : `quorum ${s.parallel.join.quorum}`}`;
  if (s.debate) return `${s.name} · debate (${s.debate.reviewers.join(', ')})`;
  return s.name;
}

/** Renders a workflow as a Mermaid state diagram: states with their agents, transitions labelled by condition, sub-workflows nested. */
export function workflowMermaid(plan: WorkflowPlan): string {
  const lines = ['stateDiagram-v2', `  %% ${plan.name}: ${plan.description.replace(/\s+/g, ' ')}`];
  body(plan, '', '  ', lines, 0);
  return lines.join('\n');
}
