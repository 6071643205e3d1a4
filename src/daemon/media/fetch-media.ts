// Downloads the file of a `url` media source (CONTRACT "URL downloads"). Each hop resolves its
// host once, vets every address, and pins the connection to a vetted address through the
// socket's `lookup`, so a DNS answer that changes between check and connect (rebinding) cannot
// steer the request elsewhere. Redirects are followed by hand, at most 5, each one re-vetted.
// One deadline covers the whole download; the size cap is enforced while streaming.
import { lookup as dnsLookup } from 'node:dns/promises';
import type { LookupFunction } from 'node:net';
import type { Dispatcher } from 'undici';
import { DOWNLOAD_TIMEOUT_MS, MAX_REDIRECTS, REMOTE_MAX_BYTES, tooLargeMessage } from '../contract/limits.js';
import { isAllowedAddress, literalAddress, parseDownloadUrl } from './url-guard.js';
import { pageBuffer } from './page-buffer.js';

export interface ResolvedAddress {
  address: string;
  family: number;
}

/** Resolves a host name to all its addresses; injectable so tests never touch real DNS. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

export interface FetchOptions {
  allowPrivate: boolean;
  /** Replaces the address rule (tests: allow 127.0.0.1 only, to see a redirect re-vetted). */
  addressPolicy?: (address: string) => boolean;
  resolver?: Resolver;
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
  /**
   * Told the file's Content-Length (within the cap) once the final answer's headers are in, before
   * its body is read: the caller reserved the cap in the media budget and gives back the rest.
   */
  onDeclaredLength?: (bytes: number) => void;
}

/** The download failed (422 download_failed) or the file is over the limit (413). Both count. */
export class DownloadError extends Error {
  constructor(
    readonly kind: 'download_failed' | 'too_large',
    message: string,
  ) {
    super(message);
  }
}

const REDIRECT = new Set([301, 302, 303, 307, 308]);

export async function fetchMedia(urlText: string, options: FetchOptions): Promise<Uint8Array> {
  const { Agent, request } = await import('undici');
  const timeoutMs = options.timeoutMs ?? DOWNLOAD_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? REMOTE_MAX_BYTES;
  const maxRedirects = options.maxRedirects ?? MAX_REDIRECTS;
  const resolver = options.resolver ?? systemResolver;
  const deadline = new AbortController();
  const timer = setTimeout(() => deadline.abort(), timeoutMs);
  let url = parseOrFail(urlText);
  try {
    for (let redirects = 0; ; redirects++) {
      const pinned = await vet(url, options.addressPolicy ?? ((a) => isAllowedAddress(a, options.allowPrivate)), resolver);
      const agent = new Agent({ connect: { lookup: pinnedLookup(pinned), timeout: timeoutMs } });
      try {
        const response: Dispatcher.ResponseData = await request(url, {
          method: 'GET',
          dispatcher: agent,
          signal: deadline.signal,
          headers: { 'user-agent': 'provenance-daemon', accept: '*/*' },
        });
        const location = response.headers.location;
        if (REDIRECT.has(response.statusCode) && location) {
          discard(response);
          if (redirects >= maxRedirects) {
            throw new DownloadError('download_failed', `The URL redirected more than ${maxRedirects} times.`);
          }
          url = parseOrFail(String(location), url);
          continue;
        }
        if (response.statusCode < 200 || response.statusCode > 299) {
          discard(response);
          throw new DownloadError('download_failed', `The URL answered HTTP ${response.statusCode}, not a file.`);
        }
        return await readCapped(response, maxBytes, options.onDeclaredLength);
      } finally {
        agent.destroy().catch(() => {});
      }
    }
  } catch (err) {
    if (err instanceof DownloadError) throw err;
    if (deadline.signal.aborted) {
      throw new DownloadError('download_failed', `The download did not finish within ${timeoutMs / 1000} seconds.`);
    }
    throw new DownloadError('download_failed', `The URL could not be fetched (${describe(err)}).`);
  } finally {
    clearTimeout(timer);
  }
}

function parseOrFail(text: string, base?: URL): URL {
  try {
    return parseDownloadUrl(text, base);
  } catch (err) {
    throw new DownloadError('download_failed', (err as Error).message);
  }
}

async function vet(url: URL, allowed: (address: string) => boolean, resolver: Resolver): Promise<ResolvedAddress> {
  const literal = literalAddress(url);
  let addresses: ResolvedAddress[];
  if (literal) {
    addresses = [{ address: literal, family: literal.includes(':') ? 6 : 4 }];
  } else {
    try {
      addresses = await resolver(url.hostname);
    } catch (err) {
      throw new DownloadError('download_failed', `The host ${url.hostname} could not be resolved (${describe(err)}).`);
    }
    if (addresses.length === 0) throw new DownloadError('download_failed', `The host ${url.hostname} has no address.`);
  }
  // Every address must pass, not just the first: the socket layer might try any of them.
  const refused = addresses.find((a) => !allowed(a.address));
  if (refused) {
    throw new DownloadError(
      'download_failed',
      `The host ${url.hostname} resolves to ${refused.address}, an address that is not allowed (not public).`,
    );
  }
  return addresses[0]!;
}

/** A `lookup` for net/tls.connect that answers only with the vetted address. */
function pinnedLookup(target: ResolvedAddress): LookupFunction {
  return ((_hostname: string, opts: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    if (opts?.all) callback(null, [{ address: target.address, family: target.family }]);
    else callback(null, target.address, target.family);
  }) as unknown as LookupFunction;
}

async function readCapped(response: Dispatcher.ResponseData, maxBytes: number, onDeclaredLength?: (bytes: number) => void): Promise<Uint8Array> {
  const header = response.headers['content-length'];
  const declared = header === undefined ? NaN : Number(header);
  if (Number.isFinite(declared) && declared > maxBytes) {
    discard(response);
    throw new DownloadError('too_large', tooLargeMessage(maxBytes, 'url'));
  }
  if (Number.isSafeInteger(declared) && declared > 0) {
    onDeclaredLength?.(declared);
    return readDeclared(response, declared);
  }
  const chunks: Buffer[] = [];
  let total = 0;
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    total += chunk.length;
    if (total > maxBytes) {
      discard(response);
      throw new DownloadError('too_large', tooLargeMessage(maxBytes, 'url'));
    }
    chunks.push(chunk);
  }
  // The download step was reached, so this is a failed download (422, counted), not a 400.
  if (total === 0) throw new DownloadError('download_failed', 'The URL answered with an empty body (zero bytes), not a file.');
  const bytes = pageBuffer(total);
  let at = 0;
  for (const chunk of chunks) at += chunk.copy(bytes, at);
  return bytes;
}

/**
 * A body of known length, read straight into one buffer of that size (page-buffer.ts): no list
 * of chunks and no second copy to join them, so a download holds its file once (what the media
 * budget counts).
 * undici refuses a body that runs past or stops short of its Content-Length; the checks here
 * only keep the copy in bounds should it not.
 */
async function readDeclared(response: Dispatcher.ResponseData, declared: number): Promise<Uint8Array> {
  const bytes = pageBuffer(declared);
  let total = 0;
  for await (const chunk of response.body as AsyncIterable<Buffer>) {
    if (total + chunk.length > declared) {
      discard(response);
      throw new DownloadError('download_failed', 'The URL sent more bytes than its Content-Length.');
    }
    chunk.copy(bytes, total);
    total += chunk.length;
  }
  if (total !== declared) throw new DownloadError('download_failed', 'The URL ended its body before its Content-Length.');
  return bytes;
}

/** Drops a body we will not read. Destroying it makes undici emit an abort error: swallow it. */
function discard(response: Dispatcher.ResponseData): void {
  response.body.on('error', () => {});
  response.body.destroy();
}

function describe(err: unknown): string {
  const e = err as { code?: string; message?: string; cause?: { code?: string; message?: string } };
  return e?.cause?.code ?? e?.code ?? e?.cause?.message ?? e?.message ?? String(err);
}

