import { connect, createServer, type Server, type Socket } from 'node:net';

/**
 * A TCP load balancer on 127.0.0.1 (what a Kubernetes Service or an L4 proxy does in production): each
 * connection goes to the next backend that accepts it, bytes are copied both ways. Restate registers one
 * deployment URL; the workers behind it are interchangeable, so a dead one's invocations move to another.
 */
export class TcpBalancer {
  private server: Server | null = null;
  private next = 0;
  private readonly sockets = new Set<Socket>();

  constructor(readonly backends: number[]) {}

  async start(): Promise<this> {
    this.server = createServer((client) => this.route(client));
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return this;
  }

  get url(): string {
    return `http://127.0.0.1:${(this.server!.address() as { port: number }).port}/`;
  }

  private route(client: Socket, tried = 0): void {
    client.on('error', () => undefined);
    if (tried >= this.backends.length) return void client.destroy();
    const port = this.backends[this.next++ % this.backends.length]!;
    const upstream = connect(port, '127.0.0.1');
    upstream.once('error', () => this.route(client, tried + 1));
    upstream.once('connect', () => {
      upstream.on('error', () => undefined);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.once('close', () => this.sockets.delete(s));
      }
      client.pipe(upstream);
      upstream.pipe(client);
      upstream.once('close', () => client.destroy());
      client.once('close', () => upstream.destroy());
    });
  }

  async stop(): Promise<void> {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}
