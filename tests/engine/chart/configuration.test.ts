import { describe, expect, it } from 'vitest';
import { buildChart, ChartError } from '../../../src/engine/chart/chart.js';
import { enabledTransitions, initialConfiguration, isDone, transitionSets } from '../../../src/engine/chart/configuration.js';
import type { StateSpec } from '../../../src/engine/chart/node.js';

// A review flow: draft, then a parallel review (two regions, each ending in a final state), then done.
const spec: StateSpec = {
  id: 'flow',
  kind: 'compound',
  initial: 'draft',
  children: [
    { id: 'draft', kind: 'atomic', invoke: { agent: 'writer' }, transitions: [{ on: 'drafted', target: ['review'] }] },
    {
      id: 'review',
      kind: 'parallel',
      transitions: [{ on: 'reviewed', target: ['done'], guard: 'all_done' }],
      children: [
        { id: 'style', kind: 'compound', children: [{ id: 'reading', kind: 'atomic', invoke: { agent: 'editor' }, transitions: [{ on: 'style_ok', target: ['review', 'style', 'ok'] }] }, { id: 'ok', kind: 'final' }] },
        { id: 'facts', kind: 'compound', children: [{ id: 'checking', kind: 'atomic', invoke: { agent: 'checker' }, transitions: [{ on: 'facts_ok', target: ['review', 'facts', 'ok'] }] }, { id: 'ok', kind: 'final' }] },
      ],
    },
    { id: 'done', kind: 'final' },
  ],
};

describe('the statechart core', () => {
  const chart = buildChart(spec);

  it('starts in the initial leaf; states have typed paths and keys', () => {
    expect(initialConfiguration(chart)).toEqual(['draft']);
    expect(chart.byKey.get('review.style.reading')!.path).toEqual(['review', 'style', 'reading']);
    expect(chart.byAgent.get('checker')!.key).toBe('review.facts.checking');
  });

  it('entering a parallel state enters every region: exit and entry sets in order', () => {
    const sets = transitionSets(chart, ['draft'], ['draft'], ['review']);
    expect(sets.exited.map((n) => n.key)).toEqual(['draft']);
    expect(sets.entered.map((n) => n.key)).toEqual(['review', 'review.style', 'review.style.reading', 'review.facts', 'review.facts.checking']);
    expect(sets.configuration).toEqual(['review.style.reading', 'review.facts.checking']);
  });

  it('a transition inside one region leaves the other region as it is; the parallel state is done when every region is final', () => {
    let config = transitionSets(chart, ['draft'], ['draft'], ['review']).configuration;
    const review = chart.byKey.get('review')!;
    const style = transitionSets(chart, config, ['review', 'style', 'reading'], ['review', 'style', 'ok']);
    expect(style.exited.map((n) => n.key)).toEqual(['review.style.reading']);
    config = style.configuration;
    expect(config).toEqual(['review.style.ok', 'review.facts.checking']);
    expect(isDone(chart, config, review)).toBe(false);
    config = transitionSets(chart, config, ['review', 'facts', 'checking'], ['review', 'facts', 'ok']).configuration;
    expect(isDone(chart, config, review)).toBe(true);
    // Leaving the parallel state exits every active state below it, deepest first.
    const out = transitionSets(chart, config, ['review'], ['done']);
    expect(out.exited.map((n) => n.key)).toEqual(['review.style.ok', 'review.facts.ok', 'review.style', 'review.facts', 'review']);
    expect(out.configuration).toEqual(['done']);
    expect(isDone(chart, out.configuration, chart.root)).toBe(true);
  });

  it('a self-transition exits and re-enters the state', () => {
    const sets = transitionSets(chart, ['draft'], ['draft'], ['draft']);
    expect(sets.exited.map((n) => n.key)).toEqual(['draft']);
    expect(sets.entered.map((n) => n.key)).toEqual(['draft']);
  });

  it('finds the transitions an input enables, inner states first, guards by name', () => {
    const config = ['review.style.ok', 'review.facts.ok'];
    expect(enabledTransitions(chart, ['draft'], 'drafted', () => true).map((t) => t.transition.target)).toEqual([['review']]);
    expect(enabledTransitions(chart, config, 'reviewed', (name) => name === 'all_done' && isDone(chart, config, chart.byKey.get('review')!))).toHaveLength(1);
    expect(enabledTransitions(chart, config, 'reviewed', () => false)).toEqual([]);
    expect(enabledTransitions(chart, ['draft'], 'nothing', () => true)).toEqual([]);
  });

  it('refuses a chart that cannot be built', () => {
    expect(() => buildChart({ id: 'x', kind: 'compound', children: [] })).toThrow(ChartError);
    expect(() => buildChart({ id: 'x', kind: 'compound', initial: 'b', children: [{ id: 'a', kind: 'atomic' }] })).toThrow(/initial "b"/);
    expect(() => buildChart({ id: 'x', kind: 'compound', children: [{ id: 'a', kind: 'atomic' }, { id: 'a', kind: 'final' }] })).toThrow(/two children named a/);
  });
});
