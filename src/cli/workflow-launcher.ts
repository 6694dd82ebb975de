import { randomUUID } from 'node:crypto';
import type { WorkflowLauncher } from '../commands/execute.js';
import type { TroupeEvent } from '../engine/event-map.js';
import type { ChatModel } from '../llm/chat-model.js';
import { forkSession } from '../store/fork.js';
import type { OpenTeam } from '../team/open-team.js';
import { openSession } from '../session/open-session.js';
import type { Store } from '../store/store.js';
import type { CliIo } from './io.js';

/** What a workflow session opened from the UI is made of: the team for roles, a fresh model, the store. */
export interface LauncherDeps {
  team: OpenTeam;
  teamDir: string;
  model: () => ChatModel;
  /** The model for a fork (the demo goes on with its story where the fork starts); default: `model()`. */
  resumed?: (events: () => Promise<TroupeEvent[]>) => Promise<ChatModel>;
  store: Store;
  /** The roles folder or file a rewound workflow session's agents are checked against (the command's --roles). */
  roles?: string;
  /** The command's --allow-network: a workflow whose agents turn the network on opens only with it (the UI cannot ask a question of its own). */
  allowNetwork?: boolean;
}

/** `/workflow` in the UI: lists the workflows and opens a stored session running one. */
export function workflowLauncher(io: CliIo, deps: LauncherDeps): WorkflowLauncher {
  // The workflow loader is imported when `/workflow` is first used, not before the UI's first frame.
  const loader = async () => {
    const [{ listWorkflows }, { loadWorkflowOrThrow }, { workflowDirs }] = await Promise.all([
      import('../workflow/load/list.js'),
      import('../workflow/load/load-workflow.js'),
      import('../workflow/load/locate.js'),
    ]);
    return { listWorkflows, loadWorkflowOrThrow, dirs: () => workflowDirs(io.cwd, io.env) };
  };
  return {
    async list() {
      const { listWorkflows, dirs } = await loader();
      const entries = listWorkflows(dirs(), io.cwd);
      if (entries.length === 0) return ['no workflows found — put one in workflows/<name>.json'];
      const width = Math.max(...entries.map((e) => e.name.length));
      return entries.map((e) => `${e.name.padEnd(width)}  ${e.broken ? `(cannot be read: ${e.broken})` : e.description}`);
    },
    async open(name, input) {
      const { loadWorkflowOrThrow, dirs } = await loader();
      const workflow = loadWorkflowOrThrow(name, { cwd: io.cwd, env: io.env, dirs: dirs(), team: deps.team.loaded });
      // In the UI, commands under the `ask` policy wait for !allow / !deny.
      const session = await openSession({
        team: deps.team,
        teamDir: deps.teamDir,
        workflow,
        model: deps.model(),
        store: deps.store,
        env: io.env,
        brief: input,
        askCommands: true,
        allowNetwork: deps.allowNetwork ?? false,
      });
      session.start(input);
      return session;
    },
    async rewind(id, step) {
      const fork = await forkSession(deps.store, { from: id, step, id: randomUUID(), now: new Date().toISOString() });
      const roles = deps.roles !== undefined ? { roles: deps.roles } : {};
      return openSession({
        store: deps.store,
        resume: fork.id,
        env: io.env,
        cwd: io.cwd,
        ...roles,
        askCommands: true,
        allowNetwork: deps.allowNetwork ?? false,
        model: async (stored) => (stored && deps.resumed ? deps.resumed(stored.events) : deps.model()),
      });
    },
  };
}
