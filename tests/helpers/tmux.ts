import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { alive } from './child.js';
import { REPO_ROOT } from './team.js';

/** Whether tmux can be run here (the tmux tests skip without it). */
export const hasTmux = spawnSync('tmux', ['-V']).status === 0;

const quote = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/**
 * The real CLI's terminal UI in a private tmux server (never the user's sessions), at a given size:
 * type lines, read the screen, wait for something to show.
 */
export class TmuxUi {
  private static count = 0;
  private readonly socket = `troupe-wf-e2e-${process.pid}-${TmuxUi.count++}`;

  /** Opens `node dist/cli.js ...args` in a `cols`x`rows` window with the given environment (a person at a terminal: CI=false). */
  constructor(env: Record<string, string>, options: { cols?: number; rows?: number; args?: string[]; cwd?: string } = {}) {
    const vars = Object.entries({ CI: 'false', ...env })
      .map(([k, v]) => `${k}=${quote(v)}`)
      .join(' ');
    // Model and data variables of the test runner's own environment never reach the UI.
    const clean = '-u OPENAI_API_KEY -u OPENAI_BASE_URL -u TROUPE_MODEL -u TROUPE_DATA_DIR -u TROUPE_WORKFLOWS';
    const command = `cd ${quote(options.cwd ?? REPO_ROOT)} && env ${clean} ${vars} node ${quote(join(REPO_ROOT, 'dist', 'cli.js'))} ${(options.args ?? []).map(quote).join(' ')}; sleep 60`;
    this.tmux('new-session', '-d', '-s', 'tui', '-x', String(options.cols ?? 100), '-y', String(options.rows ?? 32), command);
  }

  private tmux(...args: string[]): string {
    return execFileSync('tmux', ['-L', this.socket, ...args], { encoding: 'utf8' });
  }

  /** What the window shows now (`history` lines of scrollback above it too). */
  screen(history = 200): string {
    return this.tmux('capture-pane', '-p', '-t', 'tui', '-S', String(-history));
  }

  /**
   * Every line the terminal holds, scrollback and window, as the program wrote it: rows the terminal wrapped
   * (a line wider than the window) are joined back, so a line too wide shows as one longer than the window.
   */
  written(): string[] {
    return this.tmux('capture-pane', '-p', '-J', '-t', 'tui', '-S', '-').split('\n');
  }

  /** Just the visible window, line by line. */
  visible(): string[] {
    return this.tmux('capture-pane', '-p', '-t', 'tui').split('\n');
  }

  /** Types a line and presses Enter. */
  type(line: string): void {
    this.tmux('send-keys', '-t', 'tui', '-l', line);
    this.tmux('send-keys', '-t', 'tui', 'Enter');
  }

  /** Waits until `check` holds for the screen (with scrollback); the error shows the screen. */
  async waitFor(what: string, check: (screen: string) => boolean, limitMs = 15_000): Promise<string> {
    const deadline = Date.now() + limitMs;
    for (;;) {
      const shown = this.screen();
      if (check(shown)) return shown;
      if (Date.now() > deadline) throw new Error(`gave up waiting: ${what}; the screen:\n${shown}`);
      await new Promise((r) => setTimeout(r, 40));
    }
  }

  /** Closes the window and waits until the processes in it are gone (the UI saves its session as it goes). */
  async stop(): Promise<void> {
    const pane = spawnSync('tmux', ['-L', this.socket, 'display-message', '-p', '-t', 'tui', '#{pane_pid}'], { encoding: 'utf8' }).stdout.trim();
    const children = pane ? readFileSync(`/proc/${pane}/task/${pane}/children`, 'utf8').trim().split(/\s+/).filter(Boolean).map(Number) : [];
    spawnSync('tmux', ['-L', this.socket, 'kill-server']);
    // tmux may leave its socket file behind; it is ours alone.
    rmSync(join(process.env.TMUX_TMPDIR ?? '/tmp', `tmux-${process.getuid?.() ?? 0}`, this.socket), { force: true });
    for (let i = 0; i < 200 && children.some(alive); i++) await new Promise((r) => setTimeout(r, 25));
  }
}
