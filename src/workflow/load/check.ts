import type { ConfigIssue } from '../../config/issues.js';
import { didYouMean } from '../../config/suggest.js';
import type { WorkflowConfig } from '../config/workflow-schema.js';
import { isName } from './code.js';
import { ENDS, MAX_BRANCHES } from '../run/constants.js';

/** What the checks need besides the file: the sub-workflows that could be found and the script's functions. */
export interface CheckContext {
  file: string;
  subWorkflows: ReadonlySet<string>;
  scriptFunctions: ReadonlySet<string>;
  hasScript: boolean;
}

function pick(word: string, options: Iterable<string>): string {
  const list = [...options];
  const near = didYouMean(word, list);
  return near ? `did you mean "${near}"? (known: ${list.join(', ')})` : `use one of: ${list.join(', ') || '(none)'}`;
}

/** Checks a workflow's references (states, agents, contexts, handlers, sub-workflows) and its shape (reachable states, an end). */
export function checkWorkflow(config: WorkflowConfig, ctx: CheckContext): ConfigIssue[] {
  const issues: ConfigIssue[] = [];
  const add = (field: string, problem: string, fix: string) => issues.push({ file: ctx.file, field, problem, fix });
  // The run keeps contexts (and the guest its fields) in plain objects by name: `__proto__` would be their prototype.
  const unnamable = (field: string, name: string, what: string) => {
    if (name === '__proto__') add(field, `"__proto__" cannot name ${what}`, `rename the ${what.replace(/^an? /, '')}`);
  };
  const states = new Set<string>();
  for (const [i, s] of config.states.entries()) {
    unnamable(`states[${i}].name`, s.name, 'a state');
    if (states.has(s.name)) add(`states[${i}].name`, `duplicate state "${s.name}"`, 'give each state a unique name');
    states.add(s.name);
  }
  const contexts = new Set<string>();
  for (const [i, c] of config.contexts.entries()) {
    unnamable(`contexts[${i}].name`, c.name, 'a context');
    if (contexts.has(c.name)) add(`contexts[${i}].name`, `duplicate context "${c.name}"`, 'give each context a unique name');
    contexts.add(c.name);
  }
  const agents = new Set<string>();
  config.agents.forEach((a, i) => {
    unnamable(`agents[${i}].agent_role`, a.agent_role, 'an agent');
    if (agents.has(a.agent_role)) add(`agents[${i}].agent_role`, `agent "${a.agent_role}" is listed twice`, 'list each role once (states name agents by role)');
    agents.add(a.agent_role);
    if (!contexts.has(a.context)) add(`agents[${i}].context`, `unknown context "${a.context}"`, contexts.size ? pick(a.context, contexts) : 'add it to "contexts"');
  });
  const target = (field: string, name: string) => {
    if (!states.has(name) && !ENDS.has(name)) add(field, `unknown state "${name}"`, pick(name, [...states, 'stop']));
  };
  const agent = (field: string, name: string) => {
    if (!agents.has(name)) add(field, `unknown agent "${name}"`, agents.size ? pick(name, agents) : 'add it to "agents"');
  };
  const handler = (field: string, code: string | null | undefined) => {
    if (code == null || !isName(code) || states.has(code.trim())) return;
    if (!ctx.hasScript) add(field, `"${code}" names a script function, but the workflow has no script.js`, 'make the workflow a folder with config.json and script.js, or write the code inline');
    else if (!ctx.scriptFunctions.has(code.trim())) add(field, `script.js has no function "${code}"`, pick(code, ctx.scriptFunctions));
  };
  let dynamic = false;
  let ends = false;
  const edges = new Map<string, string[]>();
  config.states.forEach((s, i) => {
    const at = `states[${i}]`;
    const out: string[] = [];
    if (s.agent !== undefined) agent(`${at}.agent`, s.agent);
    if (s.input !== undefined && s.message !== undefined) add(`${at}.message`, 'a state has an "input" expression or a "message" template, not both', 'keep one');
    if (s.transition !== undefined && s.next_state !== undefined) add(`${at}.next_state`, 'a state has "transition" or "next_state", not both', 'keep one');
    if (s.action?.script !== undefined && s.pre_handler != null) add(`${at}.pre_handler`, 'a state has "action.script" or "pre_handler", not both', 'keep one');
    const kinds = [s.agent !== undefined, s.action?.sub_workflow !== undefined, s.parallel !== undefined, s.debate !== undefined].filter(Boolean).length;
    if (kinds > 1) add(at, 'a state runs one of: an agent, a sub_workflow, parallel branches, a debate', 'split it into several states');
    if (s.action?.function && s.action.function !== 'sendUserMessage' && s.agent === undefined) add(`${at}.action.function`, `${s.action.function} needs an agent`, 'add "agent" to the state');
    if (s.action?.sub_workflow !== undefined && !ctx.subWorkflows.has(s.action.sub_workflow))
      add(`${at}.action.sub_workflow`, `no workflow "${s.action.sub_workflow}" next to this one or in the workflow directories`, 'create it, or fix the name (troupe workflows lists them)');
    for (const [j, b] of (s.parallel?.branches ?? []).entries()) agent(`${at}.parallel.branches[${j}].agent`, b.agent);
    const ids = new Set<string>();
    for (const [j, b] of (s.parallel?.branches ?? []).entries()) {
      unnamable(`${at}.parallel.branches[${j}].id`, b.id, 'a branch');
      if (ids.has(b.id)) add(`${at}.parallel.branches[${j}].id`, `duplicate branch "${b.id}"`, 'give each branch a unique id');
      ids.add(b.id);
    }
    if ((s.parallel?.branches.length ?? 0) > MAX_BRANCHES)
      add(`${at}.parallel.branches`, `${s.parallel!.branches.length} branches; a parallel state runs at most ${MAX_BRANCHES} at once`, 'split them over several parallel states');
    const join = s.parallel?.join;
    if (join && typeof join === 'object' && join.quorum > (s.parallel?.branches.length ?? 0))
      add(`${at}.parallel.join.quorum`, `quorum ${join.quorum} is more than the ${s.parallel!.branches.length} branches`, 'lower it');
    for (const [j, r] of (s.debate?.reviewers ?? []).entries()) agent(`${at}.debate.reviewers[${j}]`, r);
    if ((s.debate?.reviewers.length ?? 0) > MAX_BRANCHES)
      add(`${at}.debate.reviewers`, `${s.debate!.reviewers.length} reviewers; a debate's first round runs at most ${MAX_BRANCHES} at once`, 'keep the reviewers whose views differ most');
    if (s.debate?.synthesiser !== undefined) agent(`${at}.debate.synthesiser`, s.debate.synthesiser);
    s.transition?.forEach((t, j) => {
      target(`${at}.transition[${j}].target`, t.target);
      out.push(t.target);
    });
    if (s.next_state !== undefined) {
      target(`${at}.next_state`, s.next_state);
      out.push(s.next_state);
    }
    for (const f of ['pre_handler', 'post_handler', 'transition_handler', 'error_handler'] as const) handler(`${at}.${f}`, s[f]);
    if (s.transition_handler != null) dynamic = true;
    if (s.error_handler != null && states.has(s.error_handler.trim())) out.push(s.error_handler.trim());
    else if (s.error_handler != null) dynamic = true;
    const final =
      s.agent === undefined && !s.parallel && !s.debate && !s.action?.sub_workflow && s.action?.script === undefined && s.pre_handler == null && out.length === 0 && s.transition_handler == null;
    if (final || out.some((t) => ENDS.has(t) && !states.has(t)) || (out.length === 0 && s.transition_handler == null)) ends = true;
    edges.set(s.name, out);
  });
  handler('error_handler', config.error_handler);
  if (config.error_handler !== undefined && !states.has(config.error_handler.trim()) && !isName(config.error_handler)) dynamic = true;
  if (!ends && !dynamic)
    add('states', 'no end state: every state has a transition onward, so the run never finishes', 'add a state with no transitions (e.g. {"name": "stop"}) and a transition to it');
  // With handlers choosing states at run time, reachability cannot be known from the file.
  if (!dynamic && states.size > 0) {
    const start = states.has('start') ? 'start' : config.states[0]!.name;
    const seen = new Set<string>([start]);
    if (states.has('resume')) seen.add('resume');
    const errorState = config.error_handler?.trim();
    if (errorState && states.has(errorState)) seen.add(errorState);
    const queue = [...seen];
    for (let s = queue.shift(); s !== undefined; s = queue.shift()) {
      for (const t of edges.get(s) ?? []) {
        if (!states.has(t) || seen.has(t)) continue;
        seen.add(t);
        queue.push(t);
      }
    }
    config.states.forEach((s, i) => {
      if (!seen.has(s.name)) add(`states[${i}]`, `state "${s.name}" is unreachable from "${start}"`, 'add a transition to it, or remove it');
    });
  }
  return issues;
}
