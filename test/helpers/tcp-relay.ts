// A TCP relay on 127.0.0.1 to another address (the run's PostgreSQL): a daemon pointed at the
// relay loses its database, for itself alone, when the relay closes (every connection through
// it cut, new ones refused), and gets it back when the relay opens again on the same port,
// without touching the shared server. Used by test/postgres/multipart-store-down.test.ts and
// test/daemon/fuzz-hostile-strings.test.ts.
import { createServer, connect, type Server, type Socket } from 'node:net';

export class Relay {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  port = 0;
  constructor(private readonly target: { host: string; port: number }) {}

  async open(): Promise<void> {
    if (this.server) return;
    const server = createServer((client) => {
      const upstream = connect(this.target);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on('close', () => this.sockets.delete(s));
        s.on('error', () => {
          client.destroy();
          upstream.destroy();
        });
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(this.port, '127.0.0.1', resolve);
    });
    this.port = (server.address() as { port: number }).port;
    this.server = server;
  }

  /** Refuses new connections and cuts every open one. */
  async close(): Promise<void> {
    const server = this.server;
    this.server = undefined;
    for (const s of this.sockets) s.destroy();
    if (server) await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

/** A relay to the host and port of a postgres:// URL, opened, and the URL through it. */
export async function relayTo(url: string): Promise<{ relay: Relay; url: string }> {
  const direct = new URL(url);
  const relay = new Relay({ host: direct.hostname, port: Number(direct.port || 5432) });
  await relay.open();
  const via = new URL(url);
  via.hostname = '127.0.0.1';
  via.port = String(relay.port);
  return { relay, url: via.toString() };
}
