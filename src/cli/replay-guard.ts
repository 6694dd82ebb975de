import { createInterface } from 'node:readline';
import type { ChatModel } from '../llm/chat-model.js';
import { UserError } from '../errors.js';
import { replayedFrom } from '../llm/replay-label.js';
import type { CliIo } from './io.js';

/** The user chose not to continue a session (it stays as it was): the command ends without an error. */
export class NotResumed extends UserError {}

/** Reads one line the user types (a terminal answering a question), leaving the stream open for what follows. */
export function answer(io: CliIo, question: string): Promise<string> {
  io.stdout.write(question);
  const lines = createInterface({ input: io.stdin, terminal: false });
  return new Promise((resolve) => {
    let said = '';
    lines.once('line', (line) => {
      said = line;
      lines.close();
    });
    lines.once('close', () => resolve(said));
  });
}

/**
 * A session that ran from a recording (`--replay`) has nothing recorded past where it stopped: continuing
 * it calls another model, so troupe says which and asks — on a terminal with a question, headless by
 * refusing unless `--yes` (or `--demo`, which names the model itself) says so.
 */
export async function confirmAfterReplay(stored: { label: string } | null, model: ChatModel, io: CliIo, options: { id: string; yes: boolean; demo: boolean; interactive: boolean }): Promise<void> {
  const file = stored ? replayedFrom(stored.label) : null;
  if (file === null || options.yes || options.demo) return;
  const said = `session ${options.id.slice(0, 8)} ran from the recording ${file}, which holds nothing past where it stopped: continuing it calls ${model.label}`;
  if (!options.interactive) throw new UserError(`${said} — add --yes to continue on it, or --demo for the offline demo model`);
  const reply = await answer(io, `${said}.\nContinue on it? [y/N] `);
  if (!/^\s*y(es)?\s*$/i.test(reply)) throw new NotResumed(`session ${options.id.slice(0, 8)} was not resumed (it is kept as it was)`);
}
