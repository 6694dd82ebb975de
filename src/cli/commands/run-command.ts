import { resolve } from 'node:path';
import { UsageError, type CliArgs } from '../args.js';
import { teamFor, workflowFor } from '../common.js';
import { storeFor } from '../store-for.js';
import { printer, troupeCommand, type CliIo } from '../io.js';
import type { ChatModel } from '../../llm/chat-model.js';
import { modelFromEnv } from '../../llm/from-env.js';
import { assertWithinLimit } from '../../llm/limits.js';
import { redactorFrom } from '../../llm/redact.js';
import { openSession } from '../../session/open-session.js';
import type { TroupeSession } from '../../session/troupe-session.js';
import { attachOutput } from '../attach-output.js';
import { UserError } from '../../errors.js';
import { inputOptional, inputProblem } from '../../workflow/run/frames.js';
import { printUsageSummary } from '../usage-summary.js';
import { printWorkspaces } from '../workspaces-line.js';
import { finishHeadless } from './finish.js';
import { networkConsent } from '../network-consent.js';

/** `troupe run "<brief>"`: runs a session headless until it needs the user or ends, stored; prints the transcript or JSON events. */
export async function run(args: CliArgs, io: CliIo): Promise<number> {
  const brief = (args.input ?? args.positionals.join(' ')).trim();
  if (args.input !== undefined && args.workflow === undefined) throw new UsageError('--input goes with --workflow; a team session takes its brief: troupe run "<brief>"');
  if (brief === '' && args.workflow === undefined) throw new UsageError('run needs a brief: troupe run "<brief>"');
  assertWithinLimit('brief', brief);
  const { team, dir } = teamFor(args, io);
  const workflow = args.workflow !== undefined ? await workflowFor(args.workflow, io, team, args.roles) : undefined;
  // A workflow whose input has a default (or is not required) runs without one (seed 001).
  if (brief === '' && workflow && !inputOptional(workflow)) throw new UsageError(`run --workflow ${args.workflow} needs an input: --input "<text or JSON>"`);
  const refused = workflow ? inputProblem(workflow, brief) : null;
  if (refused) throw new UserError(refused);
  // Loaded only when asked for: what a plain run loads before its first request is kept small.
  // As every path option: relative to the CLI's directory (io.cwd), which in-process callers set, not the process's.
  const replay = args.replay !== undefined ? (await import('../../llm/replay-model.js')).ReplayModel.fromFile(resolve(io.cwd, args.replay)) : null;
  let model: ChatModel = replay ?? modelFromEnv(io.env, { demo: args.demo });
  if (args.record !== undefined) model = new (await import('../../llm/recording.js')).RecordingModel(model, resolve(io.cwd, args.record));
  const session = await openSession({
    team,
    teamDir: dir,
    model,
    store: storeFor(io),
    mode: args.mode ?? 'fsm',
    brief,
    env: io.env,
    ...(workflow ? { workflow, allowNetwork: networkConsent(args.allowNetwork, io, io.interactive && !args.json) } : {}),
    ...(args.maxTurns !== undefined ? { maxTurns: args.maxTurns } : {}),
  });
  attachOutput(session, { json: args.json, write: printer(io), redact: redactorFrom(io.env), troupe: () => troupeCommand(io) });
  favourMemoryAfterFirstAnswer(session, io);
  session.start(brief);
  await session.settled();
  const code = await finishHeadless(session, io, { json: args.json, quit: false });
  printUsageSummary(session, io, { json: args.json });
  await printWorkspaces(session, io, { json: args.json });
  if (replay?.divergence) {
    io.stderr.write(`troupe: ${replay.divergence}\n`);
    return 1;
  }
  if (replay && replay.remaining > 0) io.stderr.write(`troupe: replay ended with ${replay.remaining} recorded call(s) unused\n`);
  return code;
}

/** Sizes the heap for memory once the first answer is in (or the session stops before one): not before, where it costs the first word CPU. */
function favourMemoryAfterFirstAnswer(session: TroupeSession, io: CliIo): void {
  const favour = io.favourMemory;
  if (!favour) return;
  const stop = session.subscribe((e) => {
    if (e.type !== 'agent_message' && e.type !== 'awaiting_user' && e.type !== 'session_ended') return;
    stop();
    favour();
  });
}
