import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { toMermaid } from '../../src/report/mermaid.js';
import { graphModel, isActive } from '../../src/report/graph-model.js';
import { workflowMermaid } from '../../src/workflow/graph.js';
import { loadWorkflowOrThrow } from '../../src/workflow/load/load-workflow.js';
import { compileWorkflow } from '../../src/workflow/run/compile.js';
import type { WorkflowPlan } from '../../src/workflow/run/plan.js';
import { REPO_ROOT, studio } from '../helpers/team.js';

// The console draws the definition `troupe graph` draws: the same nodes and the same moves, from the same plan.
const SHIPPED = readdirSync(join(REPO_ROOT, 'workflows'))
  .filter((f) => f !== 'roles.json')
  .map((f) => f.replace(/\.json$/, ''));

/** A graph node's id as workflowMermaid spells it (nesting joined by `__`, other characters made `_`). */
const mermaidId = (id: string) =>
  id
    .split('.')
    .map((part) => part.replace(/[^A-Za-z0-9_]/g, '_'))
    .join('__');

/** The state nodes and the moves between them in a Mermaid diagram (start and end markers, notes and boxes left out). */
function mermaidParts(text: string): { nodes: Set<string>; edges: Set<string> } {
  const nodes = new Set<string>();
  const edges = new Set<string>();
  for (const raw of text.split('\n').slice(1)) {
    const line = raw.trim();
    const edge = /^(\S+) --> (\S+?)(?::.*)?$/.exec(line);
    if (edge) {
      if (edge[1] !== '[*]' && edge[2] !== '[*]') edges.add(`${edge[1]}>${edge[2]}`);
      continue;
    }
    const node = /^([A-Za-z0-9_]+): /.exec(line);
    if (node) nodes.add(node[1]!);
  }
  return { nodes, edges };
}

describe('the definition as a graph model', () => {
  it('the team: every persona and every allowed handoff that troupe graph draws, and no other', () => {
    const def = studio().def;
    const model = graphModel(def);
    const drawn = mermaidParts(toMermaid(def));
    const byPath = new Map(def.agents.map((a) => [a.path, a.id]));
    const personas = model.nodes.filter((n) => n.kind === 'persona');
    expect(new Set(personas.map((n) => n.persona))).toEqual(new Set([...drawn.nodes].filter((n) => n !== 'user')));
    expect(new Set(model.edges.map((e) => `${byPath.get(e.from)}>${byPath.get(e.to)}`))).toEqual(drawn.edges);
    expect(model.nodes.filter((n) => n.kind === 'user')).toEqual([{ id: def.userPath, label: 'You', group: expect.any(String), kind: 'user' }]);
    expect(new Set(model.groups.map((g) => g.id))).toEqual(new Set(def.team!.majors.map((m) => m.id)));
    expect(model.initial).toBe(def.userPath);
    expect(model.names).toEqual(Object.fromEntries(def.agents.map((a) => [a.id, a.name])));
  });

  it("names a workflow's agents by their display names (the console's Cost tab and state panel read them)", () => {
    const model = graphModel(compileWorkflow(loadWorkflowOrThrow('implement_review_debate', { cwd: REPO_ROOT, team: studio().loaded })));
    expect(model.names).toMatchObject({ implementer_a: 'Implementer A', reviewer_b: 'Reviewer B' });
  });

  it.each(SHIPPED)('the shipped workflow %s: its states, branches and sub-workflows, and its transitions, as troupe graph draws them', (name) => {
    const plan = loadWorkflowOrThrow(name, { cwd: REPO_ROOT, team: studio().loaded });
    const model = graphModel(compileWorkflow(plan));
    const drawn = mermaidParts(workflowMermaid(plan));
    expect(new Set(model.nodes.map((n) => mermaidId(n.id)))).toEqual(drawn.nodes);
    expect(new Set(model.edges.map((e) => `${mermaidId(e.from)}>${mermaidId(e.to)}`))).toEqual(drawn.edges);
    // Every node sits in a group that exists, every edge joins nodes that exist.
    const ids = new Set(model.nodes.map((n) => n.id));
    const groups = new Set(model.groups.map((g) => g.id));
    for (const n of model.nodes) if (n.group) expect(groups).toContain(n.group);
    for (const e of model.edges) expect([ids.has(e.from), ids.has(e.to)]).toEqual([true, true]);
    expect(ids).toContain(model.initial);
  });

  it('labels stay one short line whatever a workflow writes in its conditions and agents', () => {
    const plan = loadWorkflowOrThrow('coder_reviewer', { cwd: REPO_ROOT, team: studio().loaded });
    const hostile: WorkflowPlan = {
      ...plan,
      states: plan.states.map((s, i) =>
        i === 0 ? { ...s, transitions: s.transitions.map((t) => ({ ...t, condition: { kind: 'expression' as const, source: `${'\n\t x > 1 &&'.repeat(500)}\u0000 true` } })) } : s,
      ),
    };
    const model = graphModel(compileWorkflow(hostile));
    const labels = model.edges.flatMap((e) => (e.label ? [e.label] : []));
    expect(labels.length).toBeGreaterThan(0);
    for (const l of labels) {
      expect(l.length).toBeLessThanOrEqual(60);
      expect(l).not.toMatch(/[\n\t]/);
    }
  });

  it('a node is active when the configuration names it or a state inside it, not a state whose name only starts the same', () => {
    expect(isActive(['review.impl_a'], 'review')).toBe(true);
    expect(isActive(['review'], 'review')).toBe(true);
    expect(isActive(['reviewer'], 'review')).toBe(false);
    expect(isActive([], 'review')).toBe(false);
  });
});
