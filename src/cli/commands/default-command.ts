import type { CliArgs } from '../args.js';
import { redactorFrom } from '../../llm/redact.js';
import { savedLine, teamFor } from '../common.js';
import { storeFor } from '../store-for.js';
import { printer, troupeCommand, type CliIo } from '../io.js';
import { modelFromEnv } from '../../llm/from-env.js';
import { openSession } from '../../session/open-session.js';
import { paced, resumeModel } from '../models.js';
import { finishHeadless } from './finish.js';

/** The brief `npm start` runs when no brief is given. */
export const DEMO_BRIEF = 'A cozy game about a lighthouse keeper tending a failing light on a stormy island';

/** `troupe` with no command: the UI on a terminal, else a session driven by piped lines; either way stored. */
export async function run(args: CliArgs, io: CliIo): Promise<number> {
  const { team, dir } = teamFor(args, io);
  const model = modelFromEnv(io.env, { demo: args.demo });
  const store = storeFor(io);
  const interactive = io.interactive && !args.json;
  const session = await openSession({
    team,
    teamDir: dir,
    model: interactive ? paced(model, io.env) : model,
    store,
    mode: args.mode ?? 'fsm',
    env: io.env,
    askCommands: interactive,
    ...(args.maxTurns !== undefined ? { maxTurns: args.maxTurns } : {}),
  });
  if (interactive) {
    const { runInteractive } = await import('../interactive.js');
    const { workflowLauncher } = await import('../workflow-launcher.js');
    const workflows = workflowLauncher(io, {
      team,
      teamDir: dir,
      store,
      allowNetwork: args.allowNetwork,
      model: () => paced(modelFromEnv(io.env, { demo: args.demo }), io.env),
      resumed: async (events) => paced(await resumeModel(io.env, { demo: args.demo }, events), io.env),
    });
    const last = await runInteractive(session, { workflows, troupe: troupeCommand(io) });
    savedLine(io, last.id, false, last.getSnapshot().status);
    return last.fault ? 1 : 0;
  }
  const { attachOutput } = await import('../attach-output.js');
  const { driveLines } = await import('../drive-lines.js');
  const write = printer(io);
  attachOutput(session, { json: args.json, write, redact: redactorFrom(io.env), troupe: () => troupeCommand(io) });
  const memory = session.memorySnapshot() ? () => session.memorySnapshot()! : undefined;
  const driven = await driveLines(session, {
    json: args.json,
    write,
    input: io.stdin,
    troupe: () => troupeCommand(io),
    ...(memory ? { memory } : {}),
  });
  // Empty input runs the demo brief; input that gave no brief (only commands, a refused line) starts nothing.
  if (driven.lines === 0) {
    session.start(DEMO_BRIEF);
    await session.settled();
  }
  const code = await finishHeadless(session, io, { json: args.json, quit: driven.quit });
  return session.getSnapshot().status === 'idle' && driven.refused > 0 ? 1 : code;
}
