import type { CliArgs } from '../args.js';
import { redactorFrom } from '../../llm/redact.js';
import { savedLine } from '../common.js';
import { storeFor } from '../store-for.js';
import { complainer, printer, troupeCommand, type CliIo } from '../io.js';
import { formatPath } from '../../report/names.js';
import { statusFactsOf, statusWords } from '../../report/status-words.js';
import { openSession } from '../../session/open-session.js';
import { paced, resumeModel } from '../models.js';
import { modelFromEnv } from '../../llm/from-env.js';
import { resolveSessionId } from '../session-lookup.js';
import { printUsageSummary } from '../usage-summary.js';
import { printWorkspaces } from '../workspaces-line.js';
import { finishHeadless } from './finish.js';
import { confirmAfterReplay, NotResumed } from '../replay-guard.js';
import { networkConsent } from '../network-consent.js';

/**
 * `troupe resume [id]`: reopens a stored session (the newest one that can continue by default) and
 * re-runs a turn that was in flight: in the UI on a terminal, else headless, reading replies and
 * commands from piped stdin like `troupe` does.
 */
export async function run(args: CliArgs, io: CliIo): Promise<number> {
  const store = storeFor(io);
  const id = await resolveSessionId(store, args.positionals[0], { pick: 'resumable', troupe: troupeCommand(io), sealed: { env: io.env, note: complainer(io) } });
  const interactive = io.interactive && !args.json;
  let session: Awaited<ReturnType<typeof openSession>>;
  try {
    session = await openSession({
      store,
      resume: id,
      env: io.env,
      cwd: io.cwd,
      ...(args.roles !== undefined ? { roles: args.roles } : {}),
      ...(args.workflow !== undefined ? { namedWorkflow: args.workflow } : {}),
      ...(args.team !== undefined ? { team: args.team } : {}),
      askCommands: interactive,
      allowNetwork: networkConsent(args.allowNetwork, io, interactive),
      model: async (stored) => {
        const model = await resumeModel(io.env, { demo: args.demo }, stored!.events);
        await confirmAfterReplay(stored, model, io, { id, yes: args.yes, demo: args.demo, interactive });
        return interactive ? paced(model, io.env) : model;
      },
    });
  } catch (error) {
    if (!(error instanceof NotResumed)) throw error;
    printer(io)(error.message);
    return 0;
  }
  if (interactive) {
    const { runInteractive } = await import('../interactive.js');
    const { workflowLauncher } = await import('../workflow-launcher.js');
    const workflows = workflowLauncher(io, {
      team: session.team,
      teamDir: session.team.loaded.dir,
      store,
      ...(args.roles !== undefined ? { roles: args.roles } : {}),
      allowNetwork: args.allowNetwork,
      model: () => paced(modelFromEnv(io.env, { demo: args.demo }), io.env),
      resumed: async (events) => paced(await resumeModel(io.env, { demo: args.demo }, events), io.env),
    });
    const last = await runInteractive(session, { resumed: true, workflows, troupe: troupeCommand(io) });
    savedLine(io, last.id, false, last.getSnapshot().status);
    return last.fault ? 1 : 0;
  }
  const write = printer(io);
  const before = session.getSnapshot();
  if (!args.json) {
    // The status as troupe sessions words it ("waiting: limit"), not the engine's name for it ("awaiting_user").
    const at = before.inFlight ? formatPath(session.def, before.inFlight.path) : statusWords(statusFactsOf(before), null);
    // A workflow's header is worded as troupe run words it: no team mode (a workflow has none), its input not a brief.
    const workflow = session.def.kind === 'workflow';
    const what = workflow ? `workflow ${session.def.name}` : `${session.def.name} · ${before.mode.toUpperCase()}`;
    write(`troupe · resuming session ${id} · ${what} · turn ${before.turn} · ${at}`);
    write(`${workflow ? 'Input' : 'Brief'}: ${before.brief}`);
    write('');
  }
  const { attachOutput } = await import('../attach-output.js');
  attachOutput(session, { json: args.json, write, redact: redactorFrom(io.env), troupe: () => troupeCommand(io) });
  session.resume();
  await session.settled();
  const after = session.getSnapshot();
  if (after === before && !args.json) {
    if (after.status === 'awaiting_user') write(`◂ waiting for you: ${after.awaiting?.reason ?? ''}`);
    if (after.status === 'ended') write(`Session ended: ${after.endReason ?? 'ended'}`);
  }
  let quit = false;
  if (!io.interactive && after.status !== 'ended') {
    const { driveLines } = await import('../drive-lines.js');
    const memory = session.memorySnapshot() ? () => session.memorySnapshot()! : undefined;
    quit = (await driveLines(session, { json: args.json, write, input: io.stdin, troupe: () => troupeCommand(io), ...(memory ? { memory } : {}) })).quit;
  }
  const code = await finishHeadless(session, io, { json: args.json, quit });
  printUsageSummary(session, io, { json: args.json });
  await printWorkspaces(session, io, { json: args.json });
  return code;
}
