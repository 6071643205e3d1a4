// Which addresses a `url` download may reach (CONTRACT "URL downloads"). Pure functions, tested
// without any network: the fetcher resolves a host once, asks `isAllowedAddress` about every
// address, and connects only to one that passed.
import { isIP } from 'node:net';

export type AddressClass =
  | 'public'
  | 'unspecified'
  | 'loopback'
  | 'private'
  | 'link_local'
  | 'cgnat'
  | 'unique_local'
  | 'multicast'
  | 'broadcast'
  | 'reserved';

type V4 = [number, number, number, number];

function parseV4(text: string): V4 | undefined {
  if (isIP(text) !== 4) return undefined;
  return text.split('.').map(Number) as V4;
}

/** Eight 16-bit groups, or undefined. Handles `::`, zone ids and a trailing dotted IPv4 part. */
export function parseV6(text: string): number[] | undefined {
  let t = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const zone = t.indexOf('%');
  if (zone >= 0) t = t.slice(0, zone);
  if (isIP(t) !== 6) return undefined;
  if (t.includes('.')) {
    // ::ffff:1.2.3.4 -> ::ffff:102:304, so only hex groups remain.
    const at = t.lastIndexOf(':');
    const [a, b, c, d] = parseV4(t.slice(at + 1))!;
    t = `${t.slice(0, at + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const hex = (s: string) => (s === '' ? [] : s.split(':').map((h) => parseInt(h, 16)));
  const gap = t.indexOf('::');
  if (gap < 0) return hex(t);
  const front = hex(t.slice(0, gap));
  const back = hex(t.slice(gap + 2));
  return [...front, ...new Array<number>(8 - front.length - back.length).fill(0), ...back];
}

export function classifyV4([a, b, c, d]: V4): AddressClass {
  if (a === 0) return b === 0 && c === 0 && d === 0 ? 'unspecified' : 'reserved'; // 0/8 "this network"
  if (a === 127) return 'loopback';
  if (a === 10 || (a === 172 && b >= 16 && b <= 31) || (a === 192 && b === 168)) return 'private';
  if (a === 169 && b === 254) return 'link_local';
  if (a === 100 && b >= 64 && b <= 127) return 'cgnat';
  if (a >= 224 && a <= 239) return 'multicast';
  if (a === 255 && b === 255 && c === 255 && d === 255) return 'broadcast';
  if (a >= 240) return 'reserved';
  // IETF protocol assignments, documentation (TEST-NET-1/2/3) and benchmarking ranges: never a
  // real public file server.
  if (a === 192 && b === 0 && (c === 0 || c === 2)) return 'reserved';
  if (a === 198 && (b === 18 || b === 19)) return 'reserved';
  if (a === 198 && b === 51 && c === 100) return 'reserved';
  if (a === 203 && b === 0 && c === 113) return 'reserved';
  return 'public';
}

function v4FromGroups(hi: number, lo: number): V4 {
  return [hi >> 8, hi & 0xff, lo >> 8, lo & 0xff];
}

export function classifyV6(g: number[]): AddressClass {
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0);
  if (zeroUpTo(8)) return 'unspecified';
  if (zeroUpTo(7) && g[7] === 1) return 'loopback';
  // Forms that carry an IPv4 address: judge the IPv4 address, so ::ffff:127.0.0.1 is loopback.
  if (zeroUpTo(5) && g[5] === 0xffff) return classifyV4(v4FromGroups(g[6]!, g[7]!)); // IPv4-mapped
  // IPv4-translated ::ffff:0:0:0/96 (SIIT, RFC 2765): ::ffff:0:7f00:1 is 127.0.0.1 as well.
  if (zeroUpTo(4) && g[4] === 0xffff && g[5] === 0) return classifyV4(v4FromGroups(g[6]!, g[7]!));
  if (zeroUpTo(6)) return classifyV4(v4FromGroups(g[6]!, g[7]!)); // IPv4-compatible (deprecated)
  if (g[0] === 0x64 && g[1] === 0xff9b && g.slice(2, 6).every((x) => x === 0)) return classifyV4(v4FromGroups(g[6]!, g[7]!)); // NAT64
  if (g[0] === 0x2002) return classifyV4(v4FromGroups(g[1]!, g[2]!)); // 6to4
  const first = g[0]!;
  if ((first & 0xfe00) === 0xfc00) return 'unique_local'; // fc00::/7
  if ((first & 0xffc0) === 0xfe80) return 'link_local'; // fe80::/10
  if ((first & 0xffc0) === 0xfec0) return 'private'; // fec0::/10, deprecated site-local
  if ((first & 0xff00) === 0xff00) return 'multicast';
  if (first === 0x2001 && g[1] === 0x0db8) return 'reserved'; // documentation
  // Discard-only 100::/64 (RFC 6666). The first group is 0x100 itself, so groups 1 to 3 are the
  // ones that must be zero (issue 18: comparing group 0 with zero too let 100:: through).
  if (first === 0x0100 && g[1] === 0 && g[2] === 0 && g[3] === 0) return 'reserved';
  if (first === 0x64 && g[1] === 0xff9b && g[2] === 1) return 'reserved'; // local-use NAT64 64:ff9b:1::/48 (RFC 8215)
  return 'public';
}

/** Class of an IP address literal (IPv4, IPv6, with or without brackets); undefined if not one. */
export function classifyAddress(address: string): AddressClass | undefined {
  const v4 = parseV4(address);
  if (v4) return classifyV4(v4);
  const v6 = parseV6(address);
  return v6 ? classifyV6(v6) : undefined;
}

/**
 * Whether a download may connect to this address. `allowPrivate` (--allow-private-urls) opens
 * loopback, private, link-local, CGNAT and unique-local ranges for offline testing; multicast,
 * broadcast and unspecified addresses never name one server and stay refused.
 */
export function isAllowedAddress(address: string, allowPrivate: boolean): boolean {
  const cls = classifyAddress(address);
  if (cls === undefined) return false;
  if (cls === 'public') return true;
  if (cls === 'multicast' || cls === 'broadcast' || cls === 'unspecified') return false;
  return allowPrivate;
}

/**
 * Parses a `url` (or a redirect target against the URL that sent it) with the WHATWG parser,
 * which also normalises numeric hosts: `http://2130706433/`, `http://0x7f.1/` and
 * `http://017700000001/` all become host 127.0.0.1 before any check looks at them.
 */
export function parseDownloadUrl(text: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    throw new UrlRefused('not_a_url', `"${text.slice(0, 200)}" is not a valid URL.`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UrlRefused('scheme', `Only http and https URLs can be downloaded, not ${url.protocol.replace(/:$/, '')}.`);
  }
  if (url.username || url.password) throw new UrlRefused('credentials', 'URLs with a user name or password are not downloaded.');
  return url;
}

/** The address in a URL's host when the host is an IP literal (after WHATWG normalisation). */
export function literalAddress(url: URL): string | undefined {
  const host = url.hostname;
  if (host.startsWith('[')) return host.slice(1, -1);
  return isIP(host) === 4 ? host : undefined;
}

export class UrlRefused extends Error {
  constructor(
    readonly reason: 'not_a_url' | 'scheme' | 'credentials' | 'address',
    message: string,
  ) {
    super(message);
  }
}
