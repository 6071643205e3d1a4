// https:// URLs as inputs: one URL is one input, whose bytes are read in this thread and handed
// to the worker pool within the read budget, as an S3 object's are (s3-source.ts). undici is
// imported on the first https:// input, so a check of local files never loads it. This module is
// small and bundled with its callers (not a lazy bundle), as s3-source.ts is: its InputErrors are
// then the callers' own class, which `instanceof` in checker.ts and the library's check() rely on.
//
// What is fetched: the URLs the user names, and the redirects they lead to (https:// only, at
// most MAX_REDIRECTS), nothing else. No address is filtered (the user names their own URLs, as
// with curl); the daemon, which fetches URLs for others, has its own guard (daemon/media/).
// http:// is refused before any request: its bytes could be changed by anyone on the way.
import type { LookupFunction } from 'node:net';
import type { Agent, Dispatcher } from 'undici';
import { InputError } from './input-error.js';
import { maskUrlSecrets } from './masked-url.js';
import { readObjectBody } from './object-body.js';
import { OBJECTS_AT_ONCE, type ReadRoom } from './read-budget.js';
import { startReadDeadline, type ReadDeadline } from './read-deadline.js';

/** Redirects followed for one request, at most (as the daemon's URL downloads). */
export const MAX_REDIRECTS = 5;
/** A server that accepts no connection fails in seconds rather than hanging the scan (as s3-source's). */
const CONNECT_TIMEOUT_MS = 10_000;
/** The longest wait for an answer's headers, and between two pieces of its body (as s3-source's). */
const IDLE_TIMEOUT_MS = 60_000;
const REDIRECT = new Set([301, 302, 303, 307, 308]);
const USER_AGENT = 'provenance-check';

export function isHttpsUrl(input: unknown): input is string {
  return typeof input === 'string' && /^https:\/\//i.test(input);
}

/** `http://...`: refused (parseHttpsUrl says why), never requested. */
export function isPlainHttpUrl(input: unknown): input is string {
  return typeof input === 'string' && /^http:\/\//i.test(input);
}

/**
 * A URL as results and messages show it: its user name and password, and query parameters named
 * like secrets (token, signature, X-Amz-Credential...), as `***` (masked-url.ts).
 */
export function shownUrl(url: string): string {
  return maskUrlSecrets(url, { user: true });
}

/** `https://...` -> the URL to request, or an InputError saying what is wrong (http:// among them). */
export function parseHttpsUrl(input: string): URL {
  const shown = shownUrl(input);
  if (isPlainHttpUrl(input)) {
    throw new InputError(
      'read_error',
      `${shown}: not read: only https:// URLs are checked on this machine (over http:// anyone on the way could change the bytes checked); give its https:// address.`,
    );
  }
  let url: URL | undefined;
  try {
    url = new URL(input);
  } catch {
    // undefined: said below
  }
  if (!url || url.protocol !== 'https:' || !url.hostname) throw new InputError('not_found', `${shown}: not a valid https:// URL.`);
  return url;
}

/** What tests change: shorter timeouts and limits, their own CA and name lookup. */
export interface HttpsOptions {
  connectTimeoutMs?: number;
  idleTimeoutMs?: number;
  maxBytes?: number;
  /** One whole read's deadline, HEAD and GET each, redirects and body included (default READ_DEADLINE_MS; `--read-timeout`). */
  deadlineMs?: number;
  /** PEM certificates to trust instead of Node's (a test's own CA). */
  ca?: string;
  lookup?: LookupFunction;
}

/** The two parts of undici used here (its module type and namespace differ in one field). */
type Undici = { Agent: typeof Agent; request: typeof import('undici').request };
let undici: Promise<Undici> | undefined;

/** The connections of one run, with the settings its requests use. */
export interface HttpsConnection {
  request: Undici['request'];
  agent: Agent;
  options: HttpsOptions;
}

/**
 * The connections for one run: keep-alive, at most OBJECTS_AT_ONCE per server (as many as the
 * read budget lets be read at once). undici unrefs idle sockets, so they never keep the process
 * alive.
 */
export async function openHttps(options: HttpsOptions = {}): Promise<HttpsConnection> {
  const { Agent, request } = await (undici ??= import('undici'));
  const idle = options.idleTimeoutMs ?? IDLE_TIMEOUT_MS;
  const agent = new Agent({
    connections: OBJECTS_AT_ONCE,
    connect: {
      timeout: options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS,
      ...(options.ca ? { ca: options.ca } : {}),
      ...(options.lookup ? { lookup: options.lookup } : {}),
    },
    headersTimeout: idle,
    bodyTimeout: idle,
  });
  return { request, agent, options };
}

/** One URL, ready to be read: `head()` learns its version and size, `read()` its bytes. */
export interface HttpsObjectRef {
  /** The URL as given (with any secrets in it): the requests go there. */
  url: string;
  /** From a HEAD answer (head()): the version for --incremental, and read() asks for exactly it. */
  etag?: string;
  lastModified?: string;
  size?: number;
  /**
   * A HEAD request (once), which fills etag, lastModified and size. A server that refuses HEAD
   * with an HTTP status (405; a signed URL made for GET only answers 403) leaves them unknown,
   * and read() reports what GET gets; a server that cannot be reached is an InputError here.
   */
  head(): Promise<void>;
  /** `room`: the read budget's hold, grown as the body is read (read-budget.ts). */
  read(room?: ReadRoom): Promise<Uint8Array>;
}

export type HttpsItem = { source: string; kind: 'https'; object: HttpsObjectRef } | { source: string; kind: 'error'; error: InputError };

/**
 * The input an `https://` (or `http://`) argument names: its item (the URL shown masked as its
 * source), or its error item. The connection is opened (undici loaded) only for a URL to read.
 */
export async function httpsInput(input: string, connect: () => Promise<HttpsConnection>): Promise<HttpsItem> {
  let url: URL;
  try {
    url = parseHttpsUrl(input);
  } catch (err) {
    return { source: shownUrl(input), kind: 'error', error: err as InputError };
  }
  return { source: shownUrl(input), kind: 'https', object: httpsObject(input, url, await connect()) };
}

function httpsObject(input: string, url: URL, connection: HttpsConnection): HttpsObjectRef {
  const source = shownUrl(input);
  let headed: Promise<void> | undefined;
  const ref: HttpsObjectRef = {
    url: input,
    head: () =>
      (headed ??= (async () => {
        const deadline = startReadDeadline(source, connection.options.deadlineMs);
        let response: Dispatcher.ResponseData;
        try {
          ({ response } = await send(connection, source, url, 'HEAD', {}, deadline));
        } finally {
          deadline.done();
        }
        discard(response);
        if (response.statusCode < 200 || response.statusCode > 299) return;
        ref.etag = header(response, 'etag');
        ref.lastModified = header(response, 'last-modified');
        ref.size = declaredLength(response);
      })()),
    read: (room) => readUrl(connection, source, url, ref, room),
  };
  return ref;
}

/**
 * What --incremental keys a URL by (with its URL): its ETag when the server gives one, else its
 * Last-Modified time with its size, as a file's modification time (so a URL changed within 2 s
 * of the scan's start is not stored). Undefined when the HEAD answer had neither: every scan
 * reads it.
 */
export function httpsVersion(ref: HttpsObjectRef): { version: string; size: number; modifiedMs: number } | undefined {
  if (ref.etag !== undefined) return { version: `etag ${ref.etag}`, size: ref.size ?? -1, modifiedMs: 0 };
  const modifiedMs = ref.lastModified === undefined ? NaN : Date.parse(ref.lastModified);
  if (ref.size === undefined || !Number.isFinite(modifiedMs)) return undefined;
  return { version: `last-modified ${ref.lastModified}`, size: ref.size, modifiedMs };
}

/** One URL's bytes (the library's check(), a distributed scan's worker): connections of its own, closed once it is read. */
export async function readHttpsUrl(input: string, options: HttpsOptions = {}): Promise<Uint8Array> {
  const url = parseHttpsUrl(input);
  const connection = await openHttps(options);
  try {
    return await readUrl(connection, shownUrl(input), url);
  } finally {
    await connection.agent.close().catch(() => {});
  }
}

async function readUrl(connection: HttpsConnection, source: string, url: URL, known?: HttpsObjectRef, room?: ReadRoom): Promise<Uint8Array> {
  const deadline = startReadDeadline(source, connection.options.deadlineMs);
  try {
    return await readUrlBy(connection, source, url, deadline, known, room);
  } finally {
    deadline.done();
  }
}

async function readUrlBy(connection: HttpsConnection, source: string, url: URL, deadline: ReadDeadline, known?: HttpsObjectRef, room?: ReadRoom): Promise<Uint8Array> {
  // The version head() saw, and no other: a strong ETag by If-Match (a weak one never matches
  // there), else Last-Modified by If-Unmodified-Since.
  const conditions: Record<string, string> =
    known?.etag !== undefined && !known.etag.startsWith('W/')
      ? { 'if-match': known.etag }
      : known?.lastModified !== undefined
        ? { 'if-unmodified-since': known.lastModified }
        : {};
  const { response, at } = await send(connection, source, url, 'GET', conditions, deadline);
  const status = response.statusCode;
  if (status < 200 || status > 299) {
    discard(response);
    if (status === 412 && Object.keys(conditions).length) {
      throw new InputError('read_error', `${source}: changed while the scan ran (the server no longer has the version its HEAD answer named); check it again.`);
    }
    throw statusError(source, status, at, url);
  }
  return readObjectBody({
    source,
    chunks: response.body,
    length: declaredLength(response),
    maxBytes: connection.options.maxBytes,
    abandon: () => discard(response),
    deadline,
    room,
    describe: (err) => {
      const { words, code } = networkFailure(err, connection.options);
      return code ? `${words}, ${code}` : words;
    },
  });
}

/**
 * One request, its redirects followed by hand: at most MAX_REDIRECTS, each to https:// only. The
 * user name and password of a URL go as Basic authorization, and only to its own origin.
 */
async function send(
  connection: HttpsConnection,
  source: string,
  url: URL,
  method: 'GET' | 'HEAD',
  conditions: Record<string, string>,
  deadline: ReadDeadline,
): Promise<{ response: Dispatcher.ResponseData; at: URL }> {
  let at = url;
  for (let redirects = 0; ; redirects++) {
    let response: Dispatcher.ResponseData;
    try {
      deadline.check();
      response = await connection.request(withoutUserinfo(at), {
        method,
        dispatcher: connection.agent,
        signal: deadline.signal,
        maxRedirections: 0,
        headers: {
          'user-agent': USER_AGENT,
          accept: '*/*',
          // The bytes as stored: a compressed transfer would be checked as its compression.
          'accept-encoding': 'identity',
          ...conditions,
          ...basicAuthorization(at.username ? at : at.origin === url.origin ? url : undefined),
        },
      });
    } catch (err) {
      if (err instanceof InputError) throw err;
      if (deadline.signal.aborted) throw deadline.error();
      const { words, code } = networkFailure(err, connection.options, at);
      throw new InputError('read_error', `${source}: ${words}${code ? ` (${code})` : ''}.`);
    }
    const location = header(response, 'location');
    if (!REDIRECT.has(response.statusCode) || location === undefined) return { response, at };
    discard(response);
    if (redirects >= MAX_REDIRECTS) throw new InputError('read_error', `${source}: redirected more than ${MAX_REDIRECTS} times; not followed further.`);
    let next: URL;
    try {
      next = new URL(location, at);
    } catch {
      throw new InputError('read_error', `${source}: redirected to "${shownUrl(location)}", which is not a URL.`);
    }
    if (next.protocol !== 'https:') {
      throw new InputError('read_error', `${source}: redirected to ${shownUrl(next.href)}, which is not https://; not followed (only https:// is read).`);
    }
    at = next;
  }
}

function withoutUserinfo(url: URL): string {
  if (!url.username && !url.password) return url.href;
  const bare = new URL(url.href);
  bare.username = '';
  bare.password = '';
  return bare.href;
}

function basicAuthorization(url: URL | undefined): Record<string, string> {
  if (!url || (!url.username && !url.password)) return {};
  const decoded = (text: string) => {
    try {
      return decodeURIComponent(text);
    } catch {
      return text; // a `%` that starts no escape: as written
    }
  };
  const pair = `${decoded(url.username)}:${decoded(url.password)}`;
  return { authorization: `Basic ${Buffer.from(pair).toString('base64')}` };
}

function header(response: Dispatcher.ResponseData, name: string): string | undefined {
  const value = response.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

function declaredLength(response: Dispatcher.ResponseData): number | undefined {
  const text = header(response, 'content-length');
  const length = text === undefined || !/^\d+$/.test(text.trim()) ? NaN : Number(text);
  return Number.isSafeInteger(length) ? length : undefined;
}

/** Drops a body not read. Destroying it makes undici emit an abort error: swallowed. */
function discard(response: Dispatcher.ResponseData): void {
  response.body.on('error', () => {});
  response.body.destroy();
}

/** An answer that is not a file: the status, and the type a missing or refused file gets. */
function statusError(source: string, status: number, at: URL, asked: URL): InputError {
  const from = at.href === asked.href ? '' : ` (redirected to ${shownUrl(at.href)})`;
  const said = `${source}: the server answered HTTP ${status}${from}`;
  if (status === 404 || status === 410) return new InputError('not_found', `${said}: no such file there.`);
  if (status === 401 || status === 403) return new InputError('permission_denied', `${said}: access refused.`);
  if (status >= 500) return new InputError('read_error', `${said}: a server error.`);
  if (status >= 300 && status < 400) return new InputError('read_error', `${said} without a Location to follow.`);
  return new InputError('read_error', `${said}, not the file.`);
}

interface NetworkError {
  code?: string;
  message?: string;
  cause?: { code?: string; message?: string };
}

/**
 * A failure to reach or hear the server, in words naming the host (when known), and the system's
 * or undici's code for it.
 */
function networkFailure(err: unknown, options: HttpsOptions, at?: URL): { words: string; code: string } {
  const e = (err ?? {}) as NetworkError;
  const code = e.code ?? e.cause?.code ?? '';
  const message = e.cause?.message ?? e.message ?? String(err);
  const host = at ? at.host : 'the server';
  const seconds = (ms: number) => `${ms / 1000} seconds`;
  const said = (words: string) => ({ words, code });
  switch (code) {
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
    case 'EAI_FAIL':
      return said(`cannot resolve the host name ${at?.hostname ?? ''}`);
    case 'ECONNREFUSED':
      return said(`${host} refused the connection`);
    case 'EHOSTUNREACH':
    case 'ENETUNREACH':
      return said(`cannot reach ${host}`);
    case 'UND_ERR_CONNECT_TIMEOUT':
      return said(`no connection to ${host} within ${seconds(options.connectTimeoutMs ?? CONNECT_TIMEOUT_MS)}`);
    case 'UND_ERR_HEADERS_TIMEOUT':
      return said(`${host} sent no answer within ${seconds(options.idleTimeoutMs ?? IDLE_TIMEOUT_MS)}`);
    case 'UND_ERR_BODY_TIMEOUT':
      return said(`no data for ${seconds(options.idleTimeoutMs ?? IDLE_TIMEOUT_MS)}`);
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return said(`${host} closed the connection`);
  }
  if (/CERT|SSL|TLS|EPROTO|^UNABLE_TO_/.test(code)) {
    return said(`TLS with ${host} failed: ${message}; the server's certificate is checked against Node's CAs (NODE_EXTRA_CA_CERTS adds a private CA)`);
  }
  return said(`cannot reach ${host}: ${message}`);
}
