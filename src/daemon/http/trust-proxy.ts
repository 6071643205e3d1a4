// `--trust-proxy` (issue 26): which X-Forwarded-For hops the daemon believes. Trusting every
// hop (fastify's `true`) made the client address the leftmost X-Forwarded-For entry, which the
// client writes itself: each request could claim a new address and pass the per-client sign-in
// limit. So the flag names the proxies: a number of hops (`1`: one proxy in front, whose entry,
// the last, is the client's address), or the proxies' own addresses and CIDR ranges (entries
// added by those are skipped from the right; the first other one is the client). A list goes to
// fastify's trustProxy as it is (proxy-addr); a count becomes a function trusting that many hops
// from the socket's peer on (fastify 5 takes a bare number as "trust none").
// A count believes the peer of every connection: the daemon must then be reachable only through
// the proxy (listening on 127.0.0.1 or a private network); else name the proxy's addresses.
import { isIP } from 'node:net';

/** What the daemon passes to fastify's trustProxy: a hop count, or proxy addresses / CIDRs. */
export type TrustProxy = number | string[];

/** A bare `--trust-proxy` (no value): one proxy in front, the usual set-up. */
export const BARE_TRUST_PROXY = 1;
const MAX_HOPS = 10;
/** proxy-addr's names for ranges: 127.0.0.1/8 and ::1, 169.254.0.0/16 and fe80::/10, private and fc00::/7. */
const NAMED_RANGES = new Set(['loopback', 'linklocal', 'uniquelocal']);

export class TrustProxyError extends Error {}

const USAGE =
  'give the number of proxies in front (e.g. --trust-proxy 1) or their addresses or CIDR ranges, comma-separated (e.g. --trust-proxy 10.0.0.0/8,127.0.0.1)';

function checkAddress(entry: string): void {
  const slash = entry.indexOf('/');
  const address = slash < 0 ? entry : entry.slice(0, slash);
  const family = isIP(address);
  if (NAMED_RANGES.has(entry)) return;
  if (!family) throw new TrustProxyError(`--trust-proxy: "${entry}" is not an IP address, a CIDR range or a hop count; ${USAGE}`);
  if (slash < 0) return;
  const bits = entry.slice(slash + 1);
  const max = family === 4 ? 32 : 128;
  if (!/^\d{1,3}$/.test(bits) || Number(bits) > max) {
    throw new TrustProxyError(`--trust-proxy: "${entry}" has no valid prefix length (0 to ${max} after the /); ${USAGE}`);
  }
}

/** The flag's value as fastify takes it; `true` is a bare `--trust-proxy`. Throws TrustProxyError. */
export function parseTrustProxy(value: string | true): TrustProxy {
  if (value === true) return BARE_TRUST_PROXY;
  const text = value.trim();
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    if (hops < 1 || hops > MAX_HOPS) {
      throw new TrustProxyError(`--trust-proxy ${text}: the number of proxies in front is 1 to ${MAX_HOPS} (without a proxy, leave --trust-proxy out)`);
    }
    return hops;
  }
  const entries = text.split(',').map((e) => e.trim());
  if (!text || entries.some((e) => !e)) throw new TrustProxyError(`--trust-proxy "${value}": ${USAGE}`);
  for (const entry of entries) checkAddress(entry);
  return entries;
}

/** fastify's trustProxy for the setting: addresses as they are, a count as a function of the hop. */
export function fastifyTrustProxy(trust: TrustProxy | undefined): false | string[] | ((address: string, hop: number) => boolean) {
  if (trust === undefined) return false;
  if (typeof trust === 'number') return (_address, hop) => hop < trust;
  return [...trust];
}

/** The flag as a `daemon start` command line gives it back (the --detach child). */
export const trustProxyArgument = (trust: TrustProxy) => (typeof trust === 'number' ? String(trust) : trust.join(','));
