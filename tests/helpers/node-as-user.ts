import { execFile } from 'node:child_process';

/** Runs `script` in a Node process as `uid` (group the same, from `/`): what it printed, trimmed, or its error output. */
export function nodeScriptAs(uid: number, script: string): Promise<string> {
  return new Promise((resolve) => execFile(process.execPath, ['-e', script], { uid, gid: uid, cwd: '/', timeout: 20_000 }, (_e, stdout, stderr) => resolve((stdout || stderr).trim())));
}
