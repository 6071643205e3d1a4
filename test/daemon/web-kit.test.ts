// The web kit's HTTP details (issue 26), pinned one by one: how a Cookie header is read, the
// exact Set-Cookie lines (Secure over https or with an https public URL), where a sign-in may
// lead (safeNext), the base URL of links, the redirect and page answers, form fields. Pure
// functions, given stand-ins for a request and a reply that record what they are asked.
import { describe, expect, it } from 'vitest';
import type { FastifyReply, FastifyRequest } from 'fastify';
import {
  DEFAULT_NEXT,
  baseUrlOf,
  clearCookie,
  formField,
  httpsPublicUrl,
  isHttps,
  readCookies,
  redirect,
  safeNext,
  sendHtml,
  setCookie,
} from '../../src/daemon/web/web-kit.js';

interface FakeRequest {
  headers: Record<string, string | undefined>;
  protocol: 'http' | 'https';
  body?: unknown;
  raw: { socket: { localAddress?: string; localPort?: number } };
}

function request(over: Partial<FakeRequest> = {}): FastifyRequest {
  const r: FakeRequest = { headers: {}, protocol: 'http', raw: { socket: { localAddress: '127.0.0.1', localPort: 8787 } }, ...over };
  return r as unknown as FastifyRequest;
}

interface Recorded {
  status?: number;
  type?: string;
  headers: [string, string][];
  body?: unknown;
}

function reply(): { reply: FastifyReply; seen: Recorded } {
  const seen: Recorded = { headers: [] };
  const r = {
    code(status: number) {
      seen.status = status;
      return r;
    },
    type(type: string) {
      seen.type = type;
      return r;
    },
    header(name: string, value: string) {
      seen.headers.push([name, value]);
      return r;
    },
    send(body: unknown) {
      seen.body = body;
      return r;
    },
  };
  return { reply: r as unknown as FastifyReply, seen };
}

describe('readCookies', () => {
  const read = (cookie: string | undefined) => readCookies(request({ headers: { cookie } }));

  it('no header, or an empty one: no cookies', () => {
    expect(read(undefined)).toEqual({});
    expect(read('')).toEqual({});
  });

  it('name=value pairs separated by ";", trimmed; a value may hold "="', () => {
    expect(read('a=1')).toEqual({ a: '1' });
    expect(read('a=1;b=2')).toEqual({ a: '1', b: '2' });
    expect(read('  a = 1 ;  b=two words ; c=x=y=')).toEqual({ a: '1', b: 'two words', c: 'x=y=' });
    expect(read('a=')).toEqual({ a: '' });
  });

  it('a quoted value loses its quotes; a value quoted on one side only keeps them', () => {
    expect(read('a="quoted"; b="left; c=right"; d=""')).toEqual({ a: 'quoted', b: '"left', c: 'right"', d: '' });
  });

  it('parts without "=" or without a name are skipped; the first of a repeated name wins', () => {
    expect(read('flag; a=1; =orphan; =; b=2')).toEqual({ a: '1', b: '2' });
    expect(read('x; y')).toEqual({});
    expect(read('a=1; a=2; b=3; b=4')).toEqual({ a: '1', b: '3' });
  });
});

describe('cookies set', () => {
  it('HttpOnly, SameSite=Lax, Path=/; Max-Age when given; a session cookie without', () => {
    const a = reply();
    setCookie(request(), a.reply, 'prv_x', 'v1');
    expect(a.seen.headers).toEqual([['set-cookie', 'prv_x=v1; Path=/; HttpOnly; SameSite=Lax']]);
    const b = reply();
    setCookie(request(), b.reply, 'prv_x', 'v2', { maxAge: 3600 });
    expect(b.seen.headers).toEqual([['set-cookie', 'prv_x=v2; Path=/; HttpOnly; SameSite=Lax; Max-Age=3600']]);
    const zero = reply();
    setCookie(request(), zero.reply, 'prv_x', 'v3', { maxAge: 0 });
    expect(zero.seen.headers).toEqual([['set-cookie', 'prv_x=v3; Path=/; HttpOnly; SameSite=Lax; Max-Age=0']]);
  });

  it('Secure when the request came over https, or when told (an https public URL), else not', () => {
    expect(isHttps(request({ protocol: 'https' }))).toBe(true);
    expect(isHttps(request({ protocol: 'http' }))).toBe(false);
    const https = reply();
    setCookie(request({ protocol: 'https' }), https.reply, 'n', 'v', { maxAge: 5 });
    expect(https.seen.headers).toEqual([['set-cookie', 'n=v; Path=/; HttpOnly; SameSite=Lax; Max-Age=5; Secure']]);
    const told = reply();
    setCookie(request(), told.reply, 'n', 'v', { secure: true });
    expect(told.seen.headers).toEqual([['set-cookie', 'n=v; Path=/; HttpOnly; SameSite=Lax; Secure']]);
    const notTold = reply();
    setCookie(request(), notTold.reply, 'n', 'v', { secure: false });
    expect(notTold.seen.headers).toEqual([['set-cookie', 'n=v; Path=/; HttpOnly; SameSite=Lax']]);
  });

  it('clearCookie: empty value, Max-Age=0, Secure as asked', () => {
    const a = reply();
    clearCookie(request(), a.reply, 'prv_session');
    expect(a.seen.headers).toEqual([['set-cookie', 'prv_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0']]);
    const b = reply();
    clearCookie(request(), b.reply, 'prv_session', { secure: true });
    expect(b.seen.headers).toEqual([['set-cookie', 'prv_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0; Secure']]);
    const c = reply();
    clearCookie(request({ protocol: 'https' }), c.reply, 'prv_session');
    expect(c.seen.headers).toEqual([['set-cookie', 'prv_session=; Path=/; HttpOnly; SameSite=Lax; Max-Age=0; Secure']]);
  });

  it('httpsPublicUrl: an https:// public URL, in any case; nothing else', () => {
    expect(httpsPublicUrl('https://provenance.example')).toBe(true);
    expect(httpsPublicUrl('HTTPS://provenance.example')).toBe(true);
    expect(httpsPublicUrl('http://provenance.example')).toBe(false);
    expect(httpsPublicUrl('xhttps://provenance.example')).toBe(false);
    expect(httpsPublicUrl('http://example/https:')).toBe(false);
    expect(httpsPublicUrl('')).toBe(false);
    expect(httpsPublicUrl(undefined)).toBe(false);
  });
});

describe('safeNext', () => {
  it('keeps paths of the dashboard and the Verify page, with the characters a path or query may use', () => {
    for (const next of [
      '/dashboard',
      '/dashboard/',
      '/dashboard?tab=keys',
      '/dashboard#keys',
      '/dashboard/keys/AZaz09-._~?a=b&c=d#x%20y',
      '/verify',
      '/verify?x=1',
      '/verify#top',
      `/dashboard?${'a'.repeat(189)}`,
    ]) {
      expect(safeNext(next), next).toBe(next);
    }
    expect(`/dashboard?${'a'.repeat(189)}`).toHaveLength(200);
  });

  it('anything else leads to the dashboard: other paths, hosts, schemes, escapes, too long, not a string', () => {
    expect(DEFAULT_NEXT).toBe('/dashboard');
    for (const next of [
      '',
      '/',
      'dashboard',
      '/dashboardx',
      '/dashboards',
      'x/dashboard',
      ' /dashboard',
      '/dashboard ',
      '/dashboard\n',
      '/dashboard?a b',
      '/dashboard?<x>',
      '/dashboard?"',
      "/dashboard?'",
      '/dashboard?a=b;c',
      '/dashboard?@evil',
      '/verify/',
      '/verify/x',
      '/verifyx',
      '/verify?a b',
      '//evil.example/dashboard',
      '/dashboard//evil.example',
      '/dashboard/\\evil.example',
      '/dashboard/%2f%2fevil.example',
      '/dashboard/%2F',
      '/dashboard/%5c',
      '/dashboard/%5C',
      'https://evil.example/dashboard',
      'javascript:alert(1)',
      '/admin',
      `/dashboard?${'a'.repeat(190)}`,
    ]) {
      expect(safeNext(next), JSON.stringify(next)).toBe('/dashboard');
    }
    for (const next of [undefined, null, 42, ['/dashboard/keys'], { toString: () => '/dashboard/keys' }]) {
      expect(safeNext(next)).toBe('/dashboard');
    }
  });
});

describe('baseUrlOf', () => {
  it('the public URL without its trailing slashes, when given', () => {
    expect(baseUrlOf(request(), 'https://prov.example')).toBe('https://prov.example');
    expect(baseUrlOf(request(), 'https://prov.example/')).toBe('https://prov.example');
    expect(baseUrlOf(request(), 'https://prov.example/base///')).toBe('https://prov.example/base');
    expect(baseUrlOf(request(), 'https://prov.example//base')).toBe('https://prov.example//base');
  });

  it('else the address and port the connection reached, IPv6 in brackets, IPv4-mapped as IPv4', () => {
    const at = (localAddress: string | undefined, protocol: 'http' | 'https' = 'http') =>
      baseUrlOf(request({ protocol, raw: { socket: { localAddress, localPort: 4321 } }, headers: { host: 'evil.example' } }));
    expect(at('127.0.0.1')).toBe('http://127.0.0.1:4321');
    expect(at('127.0.0.1', 'https')).toBe('https://127.0.0.1:4321');
    expect(at('::1')).toBe('http://[::1]:4321');
    expect(at('::ffff:192.0.2.1')).toBe('http://192.0.2.1:4321');
    expect(at('::ffff:c000:201')).toBe('http://[::ffff:c000:201]:4321');
    expect(at('2001:db8::ffff:1.2.3.4')).toBe('http://[2001:db8::ffff:1.2.3.4]:4321');
    expect(at(undefined)).toBe('http://127.0.0.1:4321');
    expect(baseUrlOf(request(), '')).toBe('http://127.0.0.1:8787');
  });
});

describe('answers', () => {
  it('sendHtml: the status and an HTML page in UTF-8', () => {
    const r = reply();
    expect(sendHtml(r.reply, 418, '<p>x</p>')).toBe(r.reply);
    expect(r.seen).toEqual({ status: 418, type: 'text/html; charset=utf-8', headers: [], body: '<p>x</p>' });
  });

  it('redirect: 303 by default, the location, and a plain-text line saying where', () => {
    const a = reply();
    expect(redirect(a.reply, '/dashboard')).toBe(a.reply);
    expect(a.seen).toEqual({ status: 303, type: 'text/plain; charset=utf-8', headers: [['location', '/dashboard']], body: 'See /dashboard\n' });
    const b = reply();
    redirect(b.reply, '/signin?expired', 302);
    expect(b.seen).toEqual({ status: 302, type: 'text/plain; charset=utf-8', headers: [['location', '/signin?expired']], body: 'See /signin?expired\n' });
  });

  it('formField: a string field of the parsed form, else undefined', () => {
    const field = (body: unknown, name = 'email') => formField(request({ body }), name);
    expect(field({ email: 'a@example.com' })).toBe('a@example.com');
    expect(field({ email: '' })).toBe('');
    expect(field({ email: ['a', 'b'] })).toBeUndefined();
    expect(field({ email: 3 })).toBeUndefined();
    expect(field({ other: 'x' })).toBeUndefined();
    expect(field(undefined)).toBeUndefined();
    expect(field(null)).toBeUndefined();
    expect(field('email=a@example.com')).toBeUndefined();
    // A body that is not an object is not indexed, even where a string would answer.
    expect(field('abc', '0')).toBeUndefined();
  });
});
