import { execFile } from 'node:child_process';
import { constants, accessSync } from 'node:fs';
import { delimiter, dirname, isAbsolute, join } from 'node:path';

/**
 * Config that keeps git from running anything a repository (or an agent that wrote its config) names.
 * Command-line `-c` wins over every config file, and GIT_CONFIG_PARAMETERS carries it to git's own
 * children (upload-pack during a clone). What git runs from config, and how each is covered:
 * - core.fsmonitor (any command that reads the index, `rev-parse --show-prefix` too): off here.
 * - hooks (post-checkout on clone, reference-transaction, pre-auto-gc, ...): core.hooksPath=/dev/null.
 * - auto gc / maintenance after a command: off (gc.auto=0, maintenance.auto=false).
 * - core.pager, pager.<cmd>: --no-pager, core.pager=cat. core.editor, sequence.editor: ":" (git's no-op).
 * - core.askPass, credential.helper: empty (the helper list reset); GIT_TERMINAL_PROMPT=0.
 * - core.sshCommand, core.gitProxy, remote-ext, url.<x>.insteadOf to other transports: every protocol but
 *   `file` refused (protocol.allow=never), so no transport program ever starts.
 * - core.alternateRefsCommand: empty.
 * - filter.<x>.clean/smudge/process, diff.<x>.textconv, merge.<x>.driver need an attribute naming them
 *   and a definition in config, and cannot be enumerated: only the repository's own config can define
 *   them (system and global config are off), troupe clones into a fresh config, and the attribute
 *   files outside the tree are off (core.attributesFile=/dev/null, GIT_ATTR_NOSYSTEM).
 * - diff.external, difftool/mergetool, gpg.program (signing), sendemail, web.browser, submodule
 *   update commands: only the commands that use them run them, and troupe runs none of those
 *   (rev-parse, clone, worktree remove/prune); submodules are not recursed into.
 * - alias.*: only for commands named by an alias; built-in names cannot be aliased.
 * - uploadpack.packObjectsHook: read only from system/global/command-line config, all empty here.
 */
const SAFE_CONFIG = [
  'core.fsmonitor=false',
  'core.hooksPath=/dev/null',
  'core.pager=cat',
  'core.editor=:',
  'sequence.editor=:',
  'core.askPass=',
  'credential.helper=',
  'core.alternateRefsCommand=',
  'core.attributesFile=/dev/null',
  'protocol.allow=never',
  'protocol.file.allow=always',
  'gc.auto=0',
  'maintenance.auto=false',
  'submodule.recurse=false',
  'fetch.recurseSubmodules=false',
  'advice.detachedHead=false',
];

/** Where system programs are; git's own directory is added in front. */
const SYSTEM_PATH = ['/usr/local/bin', '/usr/bin', '/bin'];

let gitPath: string | null | undefined;
/** git on the parent's PATH (found once, absolute entries only), or null when it is not installed. */
export function findGit(): string | null {
  if (gitPath !== undefined) return gitPath;
  gitPath = null;
  for (const dir of [...(process.env.PATH ?? '').split(delimiter), ...SYSTEM_PATH]) {
    if (!isAbsolute(dir)) continue;
    try {
      accessSync(join(dir, 'git'), constants.X_OK);
      gitPath = join(dir, 'git');
      break;
    } catch {
      // not here
    }
  }
  return gitPath;
}

/**
 * The environment troupe's git runs with: nothing of troupe's own (no API keys, no GIT_* pointing it
 * elsewhere, no GIT_CONFIG_PARAMETERS), a harmless HOME, no system or global config or attributes, no
 * prompts, protocols limited to what troupe asks for, and no optional index writes in the user's repository.
 */
export function gitEnv(git: string): Record<string, string> {
  return {
    PATH: [...new Set([dirname(git), ...SYSTEM_PATH])].join(delimiter),
    HOME: '/nonexistent',
    XDG_CONFIG_HOME: '/nonexistent',
    LANG: 'C',
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_SYSTEM: '/dev/null',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_ATTR_NOSYSTEM: '1',
    GIT_TERMINAL_PROMPT: '0',
    GIT_PROTOCOL_FROM_USER: '0',
    GIT_OPTIONAL_LOCKS: '0',
  };
}

/** git's arguments for a command: no pager, the neutralising config, then the command. */
export function gitArgs(args: readonly string[]): string[] {
  return ['--no-pager', ...SAFE_CONFIG.flatMap((c) => ['-c', c]), ...args];
}

/**
 * Runs git (no shell) on a repository that may be hostile, and resolves its stdout; rejects with git's
 * first stderr line. Nothing the repository's config names is run (see SAFE_CONFIG) and git sees none
 * of troupe's environment.
 */
export function git(cwd: string, args: readonly string[], options: { timeoutMs?: number } = {}): Promise<string> {
  const program = findGit();
  if (program === null) return Promise.reject(new Error('git is not installed'));
  return new Promise((resolve, reject) => {
    execFile(program, gitArgs(args), { cwd, env: gitEnv(program), maxBuffer: 16_000_000, timeout: options.timeoutMs ?? 120_000 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`git ${args[0]} failed: ${(stderr || error.message).trim().split('\n')[0]}`));
      else resolve(stdout);
    });
  });
}
