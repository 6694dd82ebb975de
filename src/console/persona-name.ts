import type { Catalog, Graph } from './types.js';

/**
 * Names an agent id as the transcript does: the session's own agents (a workflow's too) by its graph, the
 * server's team by the catalog, the memory's calls as "memory summaries"; an id nobody names stays as it is.
 */
export function personaNamer(graph: Pick<Graph, 'names'> | null, catalog: Pick<Catalog, 'team'>): (id: string) => string {
  return (id) => (id === '(memory)' ? 'memory summaries' : (graph?.names[id] ?? catalog.team.personas.find((p) => p.id === id)?.name ?? id));
}
