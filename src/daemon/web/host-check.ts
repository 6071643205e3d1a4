// The Host header check of the pages (issue 26): a page elsewhere on the web could point its own
// domain name at 127.0.0.1 (DNS rebinding) and then drive the daemon's pages from the browser as
// a page of "its own" origin. The browser still sends that domain name as Host, so the pages
// answer only Host values this daemon serves: the address the connection reached (with its
// port), `localhost` when that address is a loopback one, and --public-url's host. A Host without
// a port is taken as naming this daemon's port (no browser omits a port it did not default).
// The /v1 API is not checked: its keys protect it, and a rebinding page holds none.
import { isIP } from 'node:net';

export interface ServedAddress {
  /** The socket's local address (what the connection reached), as Node gives it. */
  localAddress?: string;
  localPort?: number;
  /** The operator's --public-url, if any. */
  publicUrl?: string;
}

/** A host name or an IP literal in one spelling: lower case, IPv4-mapped IPv6 as IPv4, no brackets. */
function canonicalHost(host: string): string {
  let h = host.toLowerCase();
  if (h.startsWith('[') && h.endsWith(']')) h = h.slice(1, -1);
  if (h.startsWith('::ffff:') && isIP(h.slice(7)) === 4) h = h.slice(7);
  return h;
}

/** The hostname and port of a Host header, or undefined when it is no host[:port]. */
export function parseHostHeader(value: string): { hostname: string; port?: number } | undefined {
  if (!value || value.length > 300 || /[\s/\\?#@]/.test(value)) return undefined;
  let url: URL;
  try {
    url = new URL(`http://${value}`);
  } catch {
    return undefined;
  }
  // The URL parser spells IP literals one way (127.1 is 127.0.0.1, [::0:1] is [::1]).
  const hostname = canonicalHost(url.hostname);
  if (!hostname) return undefined;
  // "host:" (an empty port) is no port; the URL parser drops the default 80 of http: too.
  const explicit = /:(\d+)$/.exec(value);
  const port = explicit ? Number(explicit[1]) : undefined;
  if (port !== undefined && port > 65535) return undefined;
  return { hostname, port };
}

const isLoopback = (address: string) => (isIP(address) === 4 ? address.startsWith('127.') : address === '::1');

/** Whether a request's Host header names this daemon (see the comment at the top). */
export function hostAllowed(header: string | undefined, served: ServedAddress): boolean {
  if (typeof header !== 'string') return false;
  const host = parseHostHeader(header);
  if (!host) return false;
  if (served.localAddress) {
    const local = canonicalHost(served.localAddress);
    const portOk = host.port === undefined || host.port === served.localPort;
    if (portOk && (host.hostname === local || (host.hostname === 'localhost' && isLoopback(local)))) return true;
  }
  if (served.publicUrl) {
    let url: URL | undefined;
    try {
      url = new URL(served.publicUrl);
    } catch {
      url = undefined;
    }
    if (url && host.hostname === canonicalHost(url.hostname)) {
      const publicPort = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
      if (host.port === undefined || host.port === publicPort) return true;
    }
  }
  return false;
}
