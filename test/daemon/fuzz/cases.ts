// What every generated request carries besides its bytes (what the answer may be), and the
// arbitraries the three families of routes share: header noise, framing, content codings.
import fc from 'fast-check';
import { CODINGS, encodeBody, type Coding, type Framing, type Req } from './wire.js';

export type Family = 'api' | 'page' | 'admin';

export interface Case extends Req {
  family: Family;
  /** The route as its documentation names it ('POST /dashboard/keys/:id/revoke'), or the unknown one sent. */
  route: string;
  /** Statuses the route documents (Node's parser's 400, 408 and 431 are allowed on any route). */
  statuses: number[];
  /** No such route: the answer is the JSON 404, whatever the request. */
  unknown: boolean;
  /** Accepted, it may change the store; refused, the store must be exactly as before. */
  mutating: boolean;
  /** Past the route's door: true with a valid key or the admin token (or no door), false without, undefined when unsure. */
  admitted: boolean | undefined;
  /** The Content-Encoding header sent, if any. */
  coding: string | undefined;
  /** Headers Node's parser may refuse (1,000 lines, one of 80 KB): the answer may be 400 or 431 before any route. */
  oversized: boolean;
  /** For the quota check: the key sent, when it is one of the fuzz accounts' keys. */
  key?: string;
}

export const headerNoise = fc.oneof(
  { weight: 12, arbitrary: fc.constant({ headers: [] as [string, string][], oversized: false }) },
  { weight: 1, arbitrary: fc.constant({ headers: Array.from({ length: 1_000 }, (_, i): [string, string] => [`X-Fuzz-${i}`, 'v']), oversized: true }) },
  { weight: 1, arbitrary: fc.constant({ headers: [['X-Big', 'b'.repeat(80 * 1024)]] as [string, string][], oversized: true }) },
  {
    weight: 1,
    arbitrary: fc.constant({
      headers: [
        ['Provenance-Test-Response', 'internal_error'],
        ['X-Forwarded-Proto', 'https'],
        ['X-Forwarded-For', '8.8.8.8'],
      ] as [string, string][],
      oversized: false,
    }),
  },
);

export const framing = fc.oneof(
  { weight: 10, arbitrary: fc.constant<Framing>('length') },
  { weight: 2, arbitrary: fc.constant<Framing>('chunked') },
  { weight: 1, arbitrary: fc.constantFrom<Framing>('length-short', 'length-long', 'chunked-lying', 'none') },
);

/**
 * A content coding: mostly none; else one of CODINGS, the body really encoded with it (gzip,
 * deflate, br, both), or now and then a header that lies (the body sent as it was).
 */
export const coding = fc.oneof(
  { weight: 8, arbitrary: fc.constant<{ coding: Coding | undefined; lying: boolean }>({ coding: undefined, lying: false }) },
  { weight: 1, arbitrary: fc.record({ coding: fc.constantFrom<Coding | undefined>(...CODINGS), lying: fc.oneof({ weight: 3, arbitrary: fc.constant(false) }, { weight: 1, arbitrary: fc.constant(true) }) }) },
);

/** The body as sent under its coding, and the header that says so. */
export function applyCoding(body: Buffer, c: { coding: Coding | undefined; lying: boolean }): { body: Buffer; header: [string, string][] } {
  if (c.coding === undefined) return { body, header: [] };
  return { body: c.lying ? body : encodeBody(body, c.coding), header: [['Content-Encoding', c.coding]] };
}

/** Strings for request targets: anything, percent-encoded, plus raw junk a parser must take. */
export const targetJunk = fc.oneof(
  fc.string({ maxLength: 30 }).map(encodeURIComponent),
  fc.constantFrom('', '%', '%zz', '%00', '%FF%FE', '..%2F..%2Fetc', 'a'.repeat(300), '%E2%80%AE', '%0d%0aSet-Cookie:%20x=1'),
);

/**
 * A path fastify's router refuses before any route runs, with the JSON 404: a segment over its
 * 100-character parameter limit (no id is that long).
 */
export const overlongSegment = (path: string) => path.split('?')[0]!.split('/').some((segment) => segment.length > 100);

/** Whether fastify's router takes the path to a route at all (else 400 or 404 before any route). */
export function routable(path: string): boolean {
  if (overlongSegment(path)) return false;
  try {
    decodeURIComponent(path.split('?')[0]!);
    return true;
  } catch {
    return false;
  }
}
