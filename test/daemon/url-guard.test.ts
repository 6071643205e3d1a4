// The URL address rule as pure functions: no test here touches the network.
import { describe, expect, it } from 'vitest';
import { classifyAddress, isAllowedAddress, literalAddress, parseDownloadUrl, UrlRefused } from '../../src/daemon/media/url-guard.js';

describe('classifyAddress', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['127.255.255.254', 'loopback'],
    ['::1', 'loopback'],
    ['10.1.2.3', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.1.1', 'private'],
    ['169.254.169.254', 'link_local'],
    ['fe80::1', 'link_local'],
    ['fe80::1%eth0', 'link_local'],
    ['100.64.0.1', 'cgnat'],
    ['100.127.255.255', 'cgnat'],
    ['fc00::1', 'unique_local'],
    ['fd12:3456:789a::1', 'unique_local'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['ff02::1', 'multicast'],
    ['0.0.0.0', 'unspecified'],
    ['::', 'unspecified'],
    ['255.255.255.255', 'broadcast'],
    ['0.1.2.3', 'reserved'],
    ['240.0.0.1', 'reserved'],
    ['192.0.2.10', 'reserved'],
    ['2001:db8::1', 'reserved'],
    // IPv4-mapped, IPv4-compatible, NAT64 and 6to4 forms are judged by the IPv4 address inside.
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['[::ffff:10.0.0.1]', 'private'],
    ['::ffff:169.254.169.254', 'link_local'],
    ['::ffff:100.64.1.1', 'cgnat'],
    ['::127.0.0.1', 'loopback'],
    ['64:ff9b::10.0.0.1', 'private'],
    ['2002:c0a8:0101::1', 'private'],
    ['::ffff:8.8.8.8', 'public'],
    ['8.8.8.8', 'public'],
    ['1.1.1.1', 'public'],
    ['100.63.255.255', 'public'],
    ['100.128.0.0', 'public'],
    ['172.15.255.255', 'public'],
    ['172.32.0.0', 'public'],
    ['2606:4700:4700::1111', 'public'],
  ])('%s is %s', (address, cls) => {
    expect(classifyAddress(address)).toBe(cls);
  });

  it('is undefined for anything that is not an IP literal', () => {
    expect(classifyAddress('localhost')).toBeUndefined();
    expect(classifyAddress('example.com')).toBeUndefined();
    expect(classifyAddress('1.2.3')).toBeUndefined();
  });
});

describe('isAllowedAddress', () => {
  const notPublic = ['127.0.0.1', '::1', '10.0.0.1', '192.168.0.1', '169.254.1.1', '100.64.0.1', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1'];
  it('refuses every non-public address by default', () => {
    for (const a of notPublic) expect(isAllowedAddress(a, false), a).toBe(false);
    expect(isAllowedAddress('8.8.8.8', false)).toBe(true);
    expect(isAllowedAddress('2606:4700::1', false)).toBe(true);
  });
  it('--allow-private-urls opens private ranges, never multicast, broadcast or unspecified', () => {
    for (const a of notPublic) expect(isAllowedAddress(a, true), a).toBe(true);
    for (const a of ['224.0.0.1', 'ff02::1', '255.255.255.255', '0.0.0.0', '::']) expect(isAllowedAddress(a, true), a).toBe(false);
  });
  it('refuses what it cannot parse', () => {
    expect(isAllowedAddress('not-an-ip', true)).toBe(false);
  });
});

describe('parseDownloadUrl + literalAddress (WHATWG normalisation of numeric hosts)', () => {
  it.each([
    ['http://2130706433/', '127.0.0.1'],
    ['http://0x7f.1/', '127.0.0.1'],
    ['http://017700000001/', '127.0.0.1'],
    ['http://0x7f000001/', '127.0.0.1'],
    ['http://127.1/', '127.0.0.1'],
    ['http://0177.0.0.1/', '127.0.0.1'],
    ['http://3232235777/', '192.168.1.1'],
    ['http://[::ffff:127.0.0.1]/', '::ffff:7f00:1'],
    ['http://[::1]:8080/x', '::1'],
  ])('%s -> %s, refused', (url, address) => {
    const parsed = parseDownloadUrl(url);
    expect(literalAddress(parsed)).toBe(address);
    expect(isAllowedAddress(literalAddress(parsed)!, false)).toBe(false);
  });

  it('leaves names to DNS', () => {
    expect(literalAddress(parseDownloadUrl('https://example.com/a.jpg'))).toBeUndefined();
  });

  it('refuses other schemes, credentials and non-URLs', () => {
    for (const bad of ['ftp://example.com/a', 'file:///etc/passwd', 'gopher://x', 'data:image/png;base64,AA', 'javascript:alert(1)']) {
      expect(() => parseDownloadUrl(bad), bad).toThrow(UrlRefused);
    }
    expect(() => parseDownloadUrl('http://user:pw@example.com/')).toThrow(/user name or password/);
    expect(() => parseDownloadUrl('not a url')).toThrow(/not a valid URL/);
  });

  it('resolves redirect targets against the URL that sent them, then judges them afresh', () => {
    const base = parseDownloadUrl('https://cdn.example.com/a/b.jpg');
    expect(parseDownloadUrl('/c.jpg', base).href).toBe('https://cdn.example.com/c.jpg');
    expect(parseDownloadUrl('//other.example/x', base).href).toBe('https://other.example/x');
    const toLoopback = parseDownloadUrl('http://2130706433:8080/', base);
    expect(isAllowedAddress(literalAddress(toLoopback)!, false)).toBe(false);
    const toMetadata = parseDownloadUrl('http://169.254.169.254/latest/meta-data/', base);
    expect(isAllowedAddress(literalAddress(toMetadata)!, false)).toBe(false);
    expect(() => parseDownloadUrl('file:///etc/passwd', base)).toThrow(UrlRefused);
  });
});
