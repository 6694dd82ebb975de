import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { arch, platform, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Child, freePort, until } from './child.js';

/** The restate-server binary shipped in npm (`@restatedev/restate-server-<platform>-<arch>`). */
export function restateServerBinary(): string {
  const pkg = `@restatedev/restate-server-${platform()}-${arch()}`;
  try {
    return createRequire(import.meta.url).resolve(`${pkg}/bin/restate-server`);
  } catch {
    throw new Error(`${pkg} is not installed: the Restate tests need the server binary from npm (npm ci installs it on linux-x64)`);
  }
}

// Tuned for tests: few partitions and little memory start fast; a worker that stops answering is given up on
// after seconds, not minutes; no telemetry.
function config(ports: { ingress: number; admin: number }): string {
  return `cluster-name = "troupe-test"
node-name = "troupe-test"
default-num-partitions = 2
rocksdb-total-memory-size = "256 MiB"
disable-telemetry = true
log-filter = "warn"
log-disable-ansi-codes = true

[admin]
bind-address = "127.0.0.1:${ports.admin}"
disable-web-ui = true

[admin.query-engine]
memory-size = "64 MiB"

[ingress]
bind-address = "127.0.0.1:${ports.ingress}"

[worker.invoker]
inactivity-timeout = "5s"
abort-timeout = "5s"
`;
}

/** A restate-server on 127.0.0.1 with its own base directory and free ports; restartable on the same data. */
export class RestateServer {
  private child: Child | null = null;

  private constructor(
    readonly dir: string,
    readonly ports: { ingress: number; admin: number; node: number },
    private readonly env: Record<string, string>,
  ) {}

  /** Starts a server in a fresh temp directory and waits until its admin API and ingress answer; `env` adds RESTATE_* settings. */
  static async start(env: Record<string, string> = {}): Promise<RestateServer> {
    const dir = mkdtempSync(join(tmpdir(), 'troupe-restate-'));
    const server = new RestateServer(dir, { ingress: await freePort(), admin: await freePort(), node: await freePort() }, env);
    writeFileSync(join(dir, 'restate.toml'), config(server.ports));
    await server.boot();
    return server;
  }

  get ingressUrl(): string {
    return `http://127.0.0.1:${this.ports.ingress}`;
  }

  get adminUrl(): string {
    return `http://127.0.0.1:${this.ports.admin}`;
  }

  /** The server's output so far (for failure messages). */
  get output(): string[] {
    return this.child?.lines ?? [];
  }

  private async boot(): Promise<void> {
    this.child = Child.start('restate-server', restateServerBinary(), ['--no-logo', '--config-file', join(this.dir, 'restate.toml')], {
      cwd: this.dir,
      env: {
        PATH: process.env.PATH ?? '',
        RESTATE_BASE_DIR: join(this.dir, 'data'),
        RESTATE_BIND_IP: '127.0.0.1',
        RESTATE_BIND_PORT: String(this.ports.node),
        RESTATE_LISTEN_MODE: 'tcp',
        ...this.env,
      },
    });
    const child = this.child;
    await until('restate-server to answer', async () => {
      if (child.process.exitCode !== null) throw new Error(`restate-server exited:\n${child.lines.slice(-20).join('\n')}`);
      return (await ok(`${this.adminUrl}/health`)) && (await ok(`${this.ingressUrl}/restate/health`));
    });
  }

  /** Kills the server (SIGKILL: no clean shutdown) and starts it again on the same data and ports. */
  async restart(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    await this.child?.kill(signal);
    await this.boot();
  }

  /** Stops the server and removes its directory. */
  async stop(): Promise<void> {
    await this.child?.kill('SIGKILL');
    this.child = null;
    rmSync(this.dir, { recursive: true, force: true });
  }
}

async function ok(url: string): Promise<boolean> {
  try {
    return (await fetch(url)).ok;
  } catch {
    return false;
  }
}
