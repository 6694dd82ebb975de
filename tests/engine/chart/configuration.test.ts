import { describe, expect, it } from 'vitest';
import { buildChart, ChartError } from '../../../src/engine/chart/chart.js';
import { transitionSets } from '../../../src/engine/chart/configuration.js';
import type { StateSpec } from '../../../src/engine/chart/node.js';

// A review flow: draft, then a parallel review (two regions, each ending in a final state), then done.
const spec: StateSpec = {
  id: 'flow',
  kind: 'compound',
  initial: 'draft',
  children: [
    { id: 'draft', kind: 'atomic', invoke: { agent: 'writer' } },
    {
      id: 'review',
      kind: 'parallel',
      children: [
        {
          id: 'style',
          kind: 'compound',
          children: [
            { id: 'reading', kind: 'atomic', invoke: { agent: 'editor' } },
            { id: 'ok', kind: 'final' },
          ],
        },
        {
          id: 'facts',
          kind: 'compound',
          children: [
            { id: 'checking', kind: 'atomic', invoke: { agent: 'checker' } },
            { id: 'ok', kind: 'final' },
          ],
        },
      ],
    },
    { id: 'done', kind: 'final' },
  ],
};

describe('the state tree', () => {
  const chart = buildChart(spec);

  it('states have typed paths and keys; agents are found by the state invoking them', () => {
    expect(chart.byKey.get('review.style.reading')!.path).toEqual(['review', 'style', 'reading']);
    expect(chart.byAgent.get('checker')!.key).toBe('review.facts.checking');
  });

  it('entering a parallel state enters every region: exit and entry sets in order', () => {
    const sets = transitionSets(chart, ['draft'], ['draft'], ['review']);
    expect(sets.exited.map((n) => n.key)).toEqual(['draft']);
    expect(sets.entered.map((n) => n.key)).toEqual(['review', 'review.style', 'review.style.reading', 'review.facts', 'review.facts.checking']);
    expect(sets.configuration).toEqual(['review.style.reading', 'review.facts.checking']);
  });

  it('a move inside one region leaves the other region as it is; leaving the parallel state exits every region', () => {
    let config = transitionSets(chart, ['draft'], ['draft'], ['review']).configuration;
    const style = transitionSets(chart, config, ['review', 'style', 'reading'], ['review', 'style', 'ok']);
    expect(style.exited.map((n) => n.key)).toEqual(['review.style.reading']);
    config = style.configuration;
    expect(config).toEqual(['review.style.ok', 'review.facts.checking']);
    config = transitionSets(chart, config, ['review', 'facts', 'checking'], ['review', 'facts', 'ok']).configuration;
    expect(config).toEqual(['review.style.ok', 'review.facts.ok']);
    // Leaving the parallel state exits every active state below it, deepest first.
    const out = transitionSets(chart, config, ['review'], ['done']);
    expect(out.exited.map((n) => n.key)).toEqual(['review.style.ok', 'review.facts.ok', 'review.style', 'review.facts', 'review']);
    expect(out.configuration).toEqual(['done']);
  });

  it('a self-transition exits and re-enters the state', () => {
    const sets = transitionSets(chart, ['draft'], ['draft'], ['draft']);
    expect(sets.exited.map((n) => n.key)).toEqual(['draft']);
    expect(sets.entered.map((n) => n.key)).toEqual(['draft']);
  });

  it('refuses a chart that cannot be built', () => {
    expect(() => buildChart({ id: 'x', kind: 'compound', children: [] })).toThrow(ChartError);
    expect(() => buildChart({ id: 'x', kind: 'compound', initial: 'b', children: [{ id: 'a', kind: 'atomic' }] })).toThrow(/initial "b"/);
    expect(() =>
      buildChart({
        id: 'x',
        kind: 'compound',
        children: [
          { id: 'a', kind: 'atomic' },
          { id: 'a', kind: 'final' },
        ],
      }),
    ).toThrow(/two children named a/);
  });
});

describe('transition sets remembered per chart', () => {
  const chart = buildChart(spec);

  it('the same move asked again gives the same sets; a move from another configuration, or to an unknown state, is worked out on its own', () => {
    const first = transitionSets(chart, ['draft'], ['draft'], ['review']);
    expect(transitionSets(chart, ['draft'], ['draft'], ['review'])).toEqual(first);
    const inReview = transitionSets(chart, first.configuration, ['review', 'style', 'reading'], ['review', 'style', 'ok']);
    expect(inReview.configuration).toEqual(['review.style.ok', 'review.facts.checking']);
    expect(() => transitionSets(chart, ['draft'], ['draft'], ['nowhere'])).toThrow(/no state nowhere/);
  });
});
