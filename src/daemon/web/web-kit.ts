// HTTP details of the pages: cookies, the redirect rule, where links point, sending a page.
import type { FastifyReply, FastifyRequest } from 'fastify';

/** Cookies of a request (no dependency: the header is name=value pairs separated by ";"). */
export function readCookies(request: FastifyRequest): Record<string, string> {
  const out: Record<string, string> = {};
  const header = request.headers.cookie;
  if (!header) return out;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    let value = part.slice(eq + 1).trim();
    if (value.startsWith('"') && value.endsWith('"')) value = value.slice(1, -1);
    if (name && !(name in out)) out[name] = value;
  }
  return out;
}

/**
 * Whether the page was reached over https: the connection's own protocol, or, only when the
 * operator said a proxy is in front (`trustProxy`), its X-Forwarded-Proto (fastify does that).
 */
export const isHttps = (request: FastifyRequest) => request.protocol === 'https';

export interface CookieOptions {
  /** Seconds; 0 deletes the cookie; absent makes a browser-session cookie. */
  maxAge?: number;
  /**
   * Secure whatever this request says: the operator's --public-url is https (Web.secureCookies),
   * so users come over https even when the proxy sends no X-Forwarded-Proto.
   */
  secure?: boolean;
}

/** Whether the pages' cookies are always Secure: the public URL users reach is https. */
export const httpsPublicUrl = (publicUrl?: string) => /^https:/i.test(publicUrl ?? '');

/**
 * Our cookies are all HttpOnly, SameSite=Lax, Path=/, and Secure whenever the page came over
 * https or the public URL is https (options.secure).
 */
export function setCookie(request: FastifyRequest, reply: FastifyReply, name: string, value: string, options: CookieOptions = {}): void {
  const parts = [`${name}=${value}`, 'Path=/', 'HttpOnly', 'SameSite=Lax'];
  if (options.maxAge !== undefined) parts.push(`Max-Age=${options.maxAge}`);
  if (options.secure || isHttps(request)) parts.push('Secure');
  reply.header('set-cookie', parts.join('; '));
}

export const clearCookie = (request: FastifyRequest, reply: FastifyReply, name: string, options: Pick<CookieOptions, 'secure'> = {}) =>
  setCookie(request, reply, name, '', { ...options, maxAge: 0 });

export const DEFAULT_NEXT = '/dashboard';

/**
 * Where to go after signing in: a path of our own dashboard, the Verify page, or the dashboard
 * itself. Never a scheme, a host or a protocol-relative URL (no open redirect), whatever the
 * form carried.
 */
export function safeNext(value: unknown): string {
  if (typeof value !== 'string' || value.length > 200) return DEFAULT_NEXT;
  if (!/^\/(?:dashboard(?:[/?#][A-Za-z0-9\-._~/?=&#%]*)?|verify(?:[?#][A-Za-z0-9\-._~/?=&#%]*)?)$/.test(value)) return DEFAULT_NEXT;
  if (value.includes('//') || value.includes('\\') || /%(?:2f|5c)/i.test(value)) return DEFAULT_NEXT;
  return value;
}

/**
 * The base URL for links in mails and pages. The operator's --public-url when given; else the
 * address this connection actually reached (the socket's local address, never the Host header,
 * which a client could set to send someone a link to another site).
 */
export function baseUrlOf(request: FastifyRequest, publicUrl?: string): string {
  if (publicUrl) return publicUrl.replace(/\/+$/, '');
  const socket = request.raw.socket;
  let host = socket.localAddress ?? '127.0.0.1';
  if (host.startsWith('::ffff:') && host.includes('.')) host = host.slice(7);
  if (host.includes(':')) host = `[${host}]`;
  return `${isHttps(request) ? 'https' : 'http'}://${host}:${socket.localPort}`;
}

export function sendHtml(reply: FastifyReply, status: number, page: string): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(page);
}

export function redirect(reply: FastifyReply, location: string, status = 303): FastifyReply {
  return reply.code(status).header('location', location).type('text/plain; charset=utf-8').send(`See ${location}\n`);
}

/** Form fields as strings (the pages' forms are application/x-www-form-urlencoded). */
export function formField(request: FastifyRequest, name: string): string | undefined {
  const body = request.body as Record<string, unknown> | undefined;
  const value = body && typeof body === 'object' ? body[name] : undefined;
  return typeof value === 'string' ? value : undefined;
}
