// The URL address rule, range by range and edge by edge (issue 18, "Tests that pin behaviour"):
// each special range's first and last address and its public neighbours, public addresses that
// share an octet with a private range, IPv6 forms that carry an IPv4 address, and full-form
// literals. Pure functions: no test here sends a packet to any of these addresses.
import { describe, expect, it } from 'vitest';
import { classifyAddress, isAllowedAddress, parseDownloadUrl, parseV6, UrlRefused } from '../../src/daemon/media/url-guard.js';

const classes = (list: string[]) => Object.fromEntries(list.map((a) => [a, classifyAddress(a)]));
const all = (list: string[], cls: string) => Object.fromEntries(list.map((a) => [a, cls]));

describe('IPv4 special ranges: both ends in, both neighbours out', () => {
  it.each([
    ['192.0.0.0/24 (IETF protocol assignments)', ['192.0.0.0', '192.0.0.8', '192.0.0.255'], ['191.255.255.255', '192.0.1.0', '192.0.1.255', '192.1.0.0']],
    ['192.0.2.0/24 (TEST-NET-1)', ['192.0.2.0', '192.0.2.255'], ['192.0.3.0', '192.0.3.255']],
    ['198.18.0.0/15 (benchmarking)', ['198.18.0.0', '198.18.255.255', '198.19.0.0', '198.19.255.255'], ['198.17.255.255', '198.20.0.0']],
    ['198.51.100.0/24 (TEST-NET-2)', ['198.51.100.0', '198.51.100.255'], ['198.51.99.255', '198.51.101.0', '198.50.100.1', '198.52.100.1']],
    ['203.0.113.0/24 (TEST-NET-3)', ['203.0.113.0', '203.0.113.255'], ['203.0.112.255', '203.0.114.0', '203.1.113.1', '202.0.113.1']],
    ['240.0.0.0/4 (reserved)', ['240.0.0.0', '255.255.255.254'], ['223.255.255.255']],
    ['0.0.0.0/8 (this network)', ['0.0.0.1', '0.255.255.255'], ['1.0.0.0']],
  ])('%s is reserved', (_name, inside, outside) => {
    expect(classes(inside)).toEqual(all(inside, 'reserved'));
    expect(classes(outside)).toEqual(all(outside, 'public'));
  });

  it('private, loopback, link-local, CGNAT and multicast ranges end where they should', () => {
    expect(classes(['10.0.0.0', '10.255.255.255', '172.16.0.0', '172.31.255.255', '192.168.0.0', '192.168.255.255'])).toEqual(
      all(['10.0.0.0', '10.255.255.255', '172.16.0.0', '172.31.255.255', '192.168.0.0', '192.168.255.255'], 'private'),
    );
    expect(classes(['127.0.0.0', '127.255.255.255'])).toEqual(all(['127.0.0.0', '127.255.255.255'], 'loopback'));
    expect(classes(['169.254.0.0', '169.254.255.255'])).toEqual(all(['169.254.0.0', '169.254.255.255'], 'link_local'));
    expect(classes(['100.64.0.0', '100.127.255.255'])).toEqual(all(['100.64.0.0', '100.127.255.255'], 'cgnat'));
    expect(classes(['224.0.0.0', '239.255.255.255'])).toEqual(all(['224.0.0.0', '239.255.255.255'], 'multicast'));
    expect(classifyAddress('255.255.255.255')).toBe('broadcast');
    expect(classifyAddress('0.0.0.0')).toBe('unspecified');
  });

  it('public addresses that share an octet with a private range stay public (and allowed)', () => {
    const publicOnes = [
      // Second octet of 192.168/16, 169.254/16, 172.16/12, 100.64/10 under another first octet.
      '8.168.0.1', '8.168.255.255', '1.254.0.1', '1.254.169.254', '8.16.0.1', '8.31.255.255', '8.64.0.1', '8.100.64.1',
      // First octet of a private range with a second octet outside it.
      '192.167.255.255', '192.169.0.0', '169.253.255.255', '169.255.0.0', '172.0.0.1', '172.15.0.1', '172.32.0.1', '100.0.0.1',
      '100.63.255.255', '100.128.0.0', '198.0.0.1', '203.0.0.1', '11.0.0.1', '9.255.255.255', '126.255.255.255', '128.0.0.1',
      // Private third or fourth octets under public first octets.
      '8.8.10.10', '8.8.127.1', '8.0.0.0', '1.0.0.127', '1.2.168.192', '9.0.0.0', '223.255.255.255', '1.1.1.1', '8.8.8.8',
    ];
    expect(classes(publicOnes)).toEqual(all(publicOnes, 'public'));
    for (const a of publicOnes) expect(isAllowedAddress(a, false), a).toBe(true);
  });
});

describe('IPv6 special ranges', () => {
  it.each([
    ['fec0::/10, deprecated site-local', ['fec0::', 'fec0::1', 'feff:ffff::1'], 'private'],
    ['fe80::/10, link-local', ['fe80::', 'febf:ffff::1'], 'link_local'],
    ['fc00::/7, unique local', ['fc00::', 'fdff:ffff::1'], 'unique_local'],
    ['ff00::/8, multicast', ['ff00::', 'ffff::1'], 'multicast'],
    ['100::/64, discard-only', ['100::', '100::1', '100::ffff:ffff:ffff:ffff'], 'reserved'],
    ['2001:db8::/32, documentation', ['2001:db8::', '2001:db8:ffff:ffff::1'], 'reserved'],
    ['64:ff9b:1::/48, local-use NAT64', ['64:ff9b:1::', '64:ff9b:1::8.8.8.8', '64:ff9b:1:ffff::1'], 'reserved'],
  ])('%s', (_name, inside, cls) => {
    expect(classes(inside)).toEqual(all(inside, cls));
    for (const a of inside) expect(isAllowedAddress(a, false), a).toBe(false);
  });

  it('their neighbours, and the rest of 2001::/16, are public', () => {
    const publicOnes = [
      'fbff:ffff::1', 'fe00::1', 'fe7f::1', 'fe40::1', '100:0:0:1::', '101::', 'ff::1', '2001::1', '2001:4860:4860::8888', '2001:db7::1',
      '2001:db9::1', '2001:0:1::1', '2000::1', '2606:4700:4700::1111', '64:ff9b:2::1',
    ];
    expect(classes(publicOnes)).toEqual(all(publicOnes, 'public'));
  });
});

describe('IPv6 forms that carry an IPv4 address are judged by it, and only those forms', () => {
  it('IPv4-mapped ::ffff:0:0/96, IPv4-compatible ::/96, NAT64 64:ff9b::/96 and 6to4 2002::/16', () => {
    expect(classes(['::ffff:10.0.0.1', '::10.0.0.1', '64:ff9b::10.0.0.1', '2002:a00:1::'])).toEqual(all(['::ffff:10.0.0.1', '::10.0.0.1', '64:ff9b::10.0.0.1', '2002:a00:1::'], 'private'));
    expect(classes(['::ffff:8.8.8.8', '::8.8.8.8', '64:ff9b::8.8.8.8', '2002:808:808::'])).toEqual(all(['::ffff:8.8.8.8', '::8.8.8.8', '64:ff9b::8.8.8.8', '2002:808:808::'], 'public'));
    expect(classifyAddress('::ffff:203.0.113.9')).toBe('reserved');
    expect(classifyAddress('64:ff9b::255.255.255.255')).toBe('broadcast');
  });

  it('a unique-local or link-local address whose low bits look like an embedded public IPv4 stays non-public', () => {
    const embedded = ['fd00::ffff:8.8.8.8', 'fd00::8.8.8.8', 'fd00:ff9b::8.8.8.8', 'fc00:0:0:0:0:ffff:808:808', 'fe80::ffff:8.8.8.8', 'fec0::ffff:8.8.8.8'];
    expect(classes(embedded)).toEqual({
      'fd00::ffff:8.8.8.8': 'unique_local',
      'fd00::8.8.8.8': 'unique_local',
      'fd00:ff9b::8.8.8.8': 'unique_local',
      'fc00:0:0:0:0:ffff:808:808': 'unique_local',
      'fe80::ffff:8.8.8.8': 'link_local',
      'fec0::ffff:8.8.8.8': 'private',
    });
    for (const a of embedded) expect(isAllowedAddress(a, false), a).toBe(false);
  });

  it('IPv4-translated ::ffff:0:0:0/96 (issue 26): judged by the IPv4 address inside, in every spelling and in a URL', () => {
    expect(classifyAddress('::ffff:0:7f00:1')).toBe('loopback');
    expect(classifyAddress('[::ffff:0:7f00:1]')).toBe('loopback');
    expect(classifyAddress('0:0:0:0:ffff:0:127.0.0.1')).toBe('loopback');
    expect(classifyAddress('::ffff:0:a00:1')).toBe('private');
    expect(classifyAddress('::ffff:0:a9fe:a9fe')).toBe('link_local');
    expect(classifyAddress('::ffff:0:0:0')).toBe('unspecified');
    expect(classifyAddress('::ffff:0:808:808')).toBe('public');
    const literal = parseDownloadUrl('http://[::ffff:0:7f00:1]:8787/x.jpg').hostname.slice(1, -1);
    expect(isAllowedAddress(literal, false)).toBe(false);
    // Only that prefix: a non-zero group around it is another (public) address.
    expect(classifyAddress('::ffff:1:7f00:1')).toBe('public');
    expect(classifyAddress('0:0:0:1:ffff:0:7f00:1')).toBe('public');
  });

  it('the mapped prefix must be exactly ::ffff:0:0/96 and NAT64 exactly 64:ff9b::/96', () => {
    // Not mapped: a non-zero group before ffff. These are plain (public) global addresses.
    expect(classifyAddress('1::ffff:10.0.0.1')).toBe('public');
    expect(classifyAddress('0:0:0:0:1:ffff:a00:1')).toBe('public');
    expect(classifyAddress('0:0:0:0:0:fffe:a00:1')).toBe('public');
    // Not NAT64: another second group, or a non-zero middle group.
    expect(classifyAddress('64:ff9a::10.0.0.1')).toBe('public');
    expect(classifyAddress('65:ff9b::10.0.0.1')).toBe('public');
    expect(classifyAddress('64:ff9b:0:0:0:1:a00:1')).toBe('public');
    expect(classifyAddress('64:ff9b:0:0:1::a00:1')).toBe('public');
    // Not IPv4-compatible: a non-zero sixth group.
    expect(classifyAddress('::1:0:a00:1')).toBe('public');
  });
});

describe('IPv6 literals in every spelling', () => {
  it('full-form (uncompressed) literals are classified, not thrown on', () => {
    expect(classifyAddress('0:0:0:0:0:0:0:1')).toBe('loopback');
    expect(classifyAddress('0000:0000:0000:0000:0000:0000:0000:0000')).toBe('unspecified');
    expect(classifyAddress('fe80:0:0:0:0:0:0:1')).toBe('link_local');
    expect(classifyAddress('2001:4860:4860:0:0:0:0:8888')).toBe('public');
    expect(classifyAddress('0:0:0:0:0:ffff:7f00:1')).toBe('loopback');
    expect(classifyAddress('0:0:0:0:0:ffff:127.0.0.1')).toBe('loopback');
    expect(parseV6('1:2:3:4:5:6:7:8')).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
  });

  it('compressed at the front, middle and end; brackets; zone ids; upper case', () => {
    expect(parseV6('::1')).toEqual([0, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseV6('1::')).toEqual([1, 0, 0, 0, 0, 0, 0, 0]);
    expect(parseV6('1:2::7:8')).toEqual([1, 2, 0, 0, 0, 0, 7, 8]);
    expect(parseV6('[fe80::1]')).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseV6('fe80::1%eth0')).toEqual([0xfe80, 0, 0, 0, 0, 0, 0, 1]);
    expect(parseV6('::ffff:1.2.3.4')).toEqual([0, 0, 0, 0, 0, 0xffff, 0x102, 0x304]);
    expect(classifyAddress('FD00::1')).toBe('unique_local');
    expect(parseV6('1.2.3.4')).toBeUndefined();
    expect(parseV6('1:2:3:4:5:6:7:8:9')).toBeUndefined();
  });
});

describe('URLs with credentials', () => {
  it.each(['http://user@example.com/a.jpg', 'http://:secret@example.com/a.jpg', 'http://user:@example.com/', 'https://a:b@example.com/'])('%s is refused', (url) => {
    expect(() => parseDownloadUrl(url)).toThrow(UrlRefused);
    expect(() => parseDownloadUrl(url)).toThrow('URLs with a user name or password are not downloaded.');
  });

  it('an empty userinfo (http://@host/) carries no credentials and is accepted', () => {
    expect(parseDownloadUrl('http://@example.com/a.jpg').href).toBe('http://example.com/a.jpg');
  });
});

// Each case below makes one mutant of the first `npm run mutation` run (docs/TESTING.md) fail.
describe('edges the first mutation run found untested', () => {
  it('0.0.0.0/8: only 0.0.0.0 itself is unspecified, whichever octet is non-zero', () => {
    expect(classes(['0.1.0.0', '0.0.1.0', '0.0.0.1'])).toEqual(all(['0.1.0.0', '0.0.1.0', '0.0.0.1'], 'reserved'));
  });

  it('only 255.255.255.255 is broadcast; other 255.x addresses are reserved (and open with --allow-private-urls)', () => {
    expect(classes(['255.0.255.255', '255.255.0.255', '255.255.255.0'])).toEqual(all(['255.0.255.255', '255.255.0.255', '255.255.255.0'], 'reserved'));
    expect(isAllowedAddress('255.255.255.0', true)).toBe(true);
    expect(isAllowedAddress('255.255.255.255', true)).toBe(false);
  });

  it('the second and third octets of 198.18/15, 198.51.100/24 and 203.0.113/24 under another first octet are public', () => {
    const publicOnes = ['8.18.0.1', '8.19.0.1', '8.51.100.1', '8.0.113.1', '8.0.2.1', '8.0.0.1'];
    expect(classes(publicOnes)).toEqual(all(publicOnes, 'public'));
  });

  it('IPv6: ::2 is IPv4-compatible 0.0.0.2, not loopback; the documentation, discard and local NAT64 prefixes need every group', () => {
    expect(classifyAddress('::2')).toBe('reserved');
    const publicOnes = ['2600:db8::1', '100:1::', '100:0:1::', '65:ff9b:1::1', '64:ff9a:1::1', '1:ff9b:1::1'];
    expect(classes(publicOnes)).toEqual(all(publicOnes, 'public'));
  });

  it('brackets must come in pairs, and a zone id is stripped before a dotted IPv4 tail is read', () => {
    for (const a of ['[::1', '::1]', 'x::1]', '[::1x', '[]']) expect(classifyAddress(a), a).toBeUndefined();
    expect(classifyAddress('::ffff:127.0.0.1%eth0')).toBe('loopback');
    expect(classifyAddress('[::ffff:8.8.8.8%1]')).toBe('public');
  });

  it('refusals say why: reason and message', () => {
    const refusal = (text: string) => {
      try {
        parseDownloadUrl(text);
      } catch (err) {
        return { reason: (err as UrlRefused).reason, message: (err as Error).message };
      }
      throw new Error(`${text} was accepted`);
    };
    expect(refusal('ftp://example.com/a')).toEqual({ reason: 'scheme', message: 'Only http and https URLs can be downloaded, not ftp.' });
    expect(refusal('http://u:p@example.com/')).toEqual({ reason: 'credentials', message: 'URLs with a user name or password are not downloaded.' });
    const long = `no url ${'x'.repeat(300)}`;
    expect(refusal(long)).toEqual({ reason: 'not_a_url', message: `"${long.slice(0, 200)}" is not a valid URL.` });
  });
});
