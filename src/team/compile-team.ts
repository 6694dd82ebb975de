import type { LoadedTeam } from '../config/load-team.js';
import type { TriggerRule } from '../arbiter/triggers.js';
import { buildChart } from '../engine/chart/chart.js';
import type { StateSpec } from '../engine/chart/node.js';
import { parsePathText, pathKey } from '../engine/chart/path.js';
import type { AgentState, MachineDefinition } from '../engine/definition.js';
import { teamPolicy } from './policy.js';

/** The id of the atomic state that holds the user inside the user major. */
export const USER_STATE = 'user';

/**
 * Compiles a loaded team onto the statechart: each major is a compound state, each persona an atomic
 * state that invokes that persona's turn, the user major holds one state where the session waits; the
 * team routing policy chooses transitions.
 */
export function compileTeam(loaded: LoadedTeam): MachineDefinition {
  const { team, personas } = loaded;
  const membersOf = new Map(team.majors.map((m) => [m.id, m.personas]));
  const userMajor = team.majors.find((m) => m.kind === 'user')!.id;
  const byId = new Map(personas.map((p) => [p.id, p]));
  const root: StateSpec = {
    id: team.name,
    kind: 'compound',
    initial: userMajor,
    children: team.majors.map(
      (m): StateSpec => ({
        id: m.id,
        kind: 'compound',
        meta: { description: m.description },
        children:
          m.kind === 'user'
            ? [{ id: USER_STATE, kind: 'atomic', waitsForUser: true }]
            : m.personas.map((id): StateSpec => ({ id, kind: 'atomic', invoke: { agent: id }, meta: { name: byId.get(id)?.name ?? id } })),
      }),
    ),
  };
  const chart = buildChart(root);
  const agents: AgentState[] = personas.map((p) => {
    const statePath = [p.major, p.id];
    return {
      id: p.id,
      name: p.name,
      major: p.major,
      path: pathKey(statePath),
      statePath,
      model: p.model,
      description: p.description,
      allowed: p.handoff_to.length === 0 ? null : new Set(p.handoff_to.flatMap((t) => membersOf.get(t) ?? [t])),
    };
  });
  const rules: TriggerRule[] = personas.flatMap((p) =>
    p.triggers.map((t, i) => ({
      id: t.id ?? `${p.id}#${i}`,
      owner: p.id,
      keywords: t.keywords,
      andKeywords: t.and_keywords ?? [],
      criteria: t.criteria,
      detour: t.detour,
      reason: t.reason,
    })),
  );
  const initialPath = parsePathText(team.initial);
  return {
    name: team.name,
    kind: 'team',
    chart,
    agents,
    agentIndex: new Map(agents.map((a) => [a.id, a])),
    userPath: pathKey([userMajor, USER_STATE]),
    initial: initialPath[initialPath.length - 1]!,
    entry: pathKey(initialPath),
    team: {
      majors: team.majors.map((m) => ({ id: m.id, kind: m.kind, lead: m.lead ?? null, children: m.personas, description: m.description })),
      userMajor,
      routing: { fsm: { kind: 'directive' }, simple: { kind: 'pipeline', stages: team.pipeline } },
      arbiter: {
        weights: team.arbiter.weights,
        defaults: team.arbiter.default_criteria,
        blockingDependency: team.arbiter.blocking_dependency,
        triggerWindow: team.arbiter.trigger_window,
        ruleCooldown: team.arbiter.rule_cooldown_turns,
        queueTtl: team.arbiter.queue_ttl_turns,
      },
      rules,
      approval: team.approval,
    },
    policy: teamPolicy,
    limits: team.limits,
  };
}
