// `--metrics-listen HOST:PORT`: /metrics on an address of its own, without a token, for a
// Prometheus that cannot read the data dir's admin.token (which changes at every start). A small
// node:http server that answers GET /metrics and nothing else.
//
// It has no authentication, so it may listen only where the operator's own network decides who
// reaches it: a loopback address, or a private one (10/8, 172.16/12, 192.168/16, 100.64/10 as
// Tailscale and other overlays use, fc00::/7). A wildcard (0.0.0.0, ::) or a public address is
// refused at start: that would publish the daemon's metrics to whoever reaches the machine.
// docs/METRICS.md says so; GET /metrics on the daemon's own address, with the token, is the way
// from anywhere else.
import { createServer, type IncomingMessage, type Server } from 'node:http';
import { BlockList, isIP } from 'node:net';
import { hostAllowed, parseHostHeader } from '../web/host-check.js';

/** A refused or unreadable --metrics-listen value (the CLI's exit 2). */
export class MetricsListenError extends Error {}

export interface MetricsListen {
  host: string;
  port: number;
}

const REACHABLE_PRIVATELY = new BlockList();
REACHABLE_PRIVATELY.addSubnet('127.0.0.0', 8, 'ipv4');
REACHABLE_PRIVATELY.addSubnet('10.0.0.0', 8, 'ipv4');
REACHABLE_PRIVATELY.addSubnet('172.16.0.0', 12, 'ipv4');
REACHABLE_PRIVATELY.addSubnet('192.168.0.0', 16, 'ipv4');
REACHABLE_PRIVATELY.addSubnet('100.64.0.0', 10, 'ipv4');
REACHABLE_PRIVATELY.addAddress('::1', 'ipv6');
REACHABLE_PRIVATELY.addSubnet('fc00::', 7, 'ipv6');

/** `127.0.0.1:9464`, `[::1]:9464`, `localhost:9464`, `10.1.2.3:0` -> host and port; refuses the rest. */
export function parseMetricsListen(text: string): MetricsListen {
  const m = /^(?:\[([0-9A-Fa-f:.]+)\]|([^:\s]+)):(\d{1,5})$/.exec(text.trim());
  const port = m ? Number(m[3]) : NaN;
  if (!m || !(port >= 0 && port <= 65535)) {
    throw new MetricsListenError(`--metrics-listen takes HOST:PORT (127.0.0.1:9464, [::1]:9464), not "${text}"`);
  }
  const host = (m[1] ?? m[2])!;
  if (host === 'localhost') return { host, port };
  const family = isIP(host);
  if (family === 0) throw new MetricsListenError(`--metrics-listen needs an IP address or localhost, not "${host}"`);
  if (!REACHABLE_PRIVATELY.check(host, family === 4 ? 'ipv4' : 'ipv6')) {
    throw new MetricsListenError(
      `--metrics-listen ${host}: the metrics address has no authentication, so it must be a loopback or private address ` +
        '(127.0.0.1, 10.x, 172.16-31.x, 192.168.x, 100.64-127.x, fc00::/7), not a wildcard or public one; ' +
        "from elsewhere scrape GET /metrics on the daemon's own address with the admin token",
    );
  }
  return { host, port };
}

/** What a scrape reads: the exposition text and its type (http/metrics.ts DaemonMetrics). */
export interface MetricsExposition {
  text(): Promise<string>;
  readonly contentType: string;
}

export interface MetricsServer {
  url: string;
  close(): Promise<void>;
}

const NOT_FOUND = JSON.stringify({ error: { type: 'not_found', message: 'This address serves GET /metrics only.' } });
const WRONG_HOST = JSON.stringify({
  error: { type: 'invalid_request', message: 'This metrics address does not serve the host name this request was sent to (its Host header); scrape it at its own address.' },
});

function metricsHostAllowed(request: IncomingMessage): boolean {
  const { localAddress, localPort } = request.socket;
  if (hostAllowed(request.headers.host, { localAddress, localPort })) return true;
  const host = parseHostHeader(request.headers.host ?? '');
  return host !== undefined && isIP(host.hostname) !== 0;
}

export async function startMetricsServer(metrics: MetricsExposition, listen: MetricsListen): Promise<MetricsServer> {
  const server: Server = createServer({ headersTimeout: 10_000, requestTimeout: 30_000 }, (request, response) => {
    const path = (request.url ?? '').split('?')[0];
    const common = { 'x-content-type-options': 'nosniff', 'cache-control': 'no-store' };
    // Without a token, the address itself is the only guard, and a page elsewhere could point
    // its own domain name at it (DNS rebinding) and read the metrics from the browser. The
    // browser then sends that name as Host, so (as the pages do, host-check.ts) a name is served
    // only when it is this address's own: localhost on loopback. An IP literal is served
    // whatever it is: no page can make a browser send one for its own origin, and behind a port
    // mapping (docker run -p 10.0.0.11:9464:9464, docs/SELF-HOSTING.md) the scraper's target
    // address differs from the socket's.
    if (!metricsHostAllowed(request)) {
      response.writeHead(421, { ...common, 'content-type': 'application/json; charset=utf-8' }).end(WRONG_HOST);
      return;
    }
    if (path !== '/metrics' || (request.method !== 'GET' && request.method !== 'HEAD')) {
      response.writeHead(404, { ...common, 'content-type': 'application/json; charset=utf-8' }).end(NOT_FOUND);
      return;
    }
    metrics.text().then(
      (text) => {
        response.writeHead(200, { ...common, 'content-type': metrics.contentType });
        response.end(request.method === 'HEAD' ? undefined : text);
      },
      () => {
        response
          .writeHead(500, { ...common, 'content-type': 'application/json; charset=utf-8' })
          .end(JSON.stringify({ error: { type: 'internal_error', message: 'The metrics could not be collected; see the daemon log.' } }));
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port, listen.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address ? address.port : listen.port;
  const host = typeof address === 'object' && address ? address.address : listen.host;
  return {
    url: `http://${host.includes(':') ? `[${host}]` : host}:${port}/metrics`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
