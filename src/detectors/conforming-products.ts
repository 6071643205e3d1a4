// The C2PA Conforming Products List (data/c2pa/conforming-products-list.json, shipped as the
// C2PA publishes it): which generator products the C2PA Conformance Program found conformant,
// each named by the subject DN its claim-signing certificates carry. A trusted manifest whose
// signing certificate's subject matches a listed generator product is signed by that product.
//
// Read only when a trusted manifest is found (a file without one never pays for the 219 KB of
// JSON), once per process. The match is on the DN fields the list names (CN, O, OU, C), each
// exactly; a field the list leaves empty must be absent from the certificate too. It says
// nothing for an untrusted signer: anyone can put any name in a certificate.
import { readFileSync } from 'node:fs';
import { packageDataFile } from '../media/package-data.js';
import type { ConformingProduct } from '../types.js';

/** A certificate subject as crJSON gives it (`signature.certificateInfo.subject`): `{"CN": ..., "O": ..., ...}`. */
export type SubjectDn = Record<string, unknown>;

/** One record of the list, as far as it is read here. */
interface ListedProduct {
  applicant?: unknown;
  status?: unknown;
  product?: {
    productType?: unknown;
    DN?: Record<string, unknown>;
    assurance?: { maxAssuranceLevel?: unknown };
  };
  dates?: { conformance?: unknown };
}

/** The DN fields the list names a product by. */
const DN_FIELDS = ['CN', 'O', 'OU', 'C'] as const;

let raw: string | undefined;
let loaded: ListedProduct[] | undefined;

/** The bundled file's text, read once; empty when it cannot be read (no product is then named). */
function bundledText(): string {
  if (raw === undefined) {
    try {
      raw = readFileSync(packageDataFile('c2pa', 'conforming-products-list.json'), 'utf8');
    } catch {
      raw = '';
    }
  }
  return raw;
}

/** The bundled list, parsed once; an unreadable or malformed file reads as an empty list (no product named). */
export function bundledProducts(): ListedProduct[] {
  if (loaded) return loaded;
  try {
    const parsed: unknown = JSON.parse(bundledText());
    loaded = Array.isArray(parsed) ? (parsed as ListedProduct[]) : [];
  } catch {
    loaded = [];
  }
  return loaded;
}

/**
 * Whether the bundled file names the subject's CN and O at all: a trusted signer that no product
 * record names (most of them) is answered without parsing the 219 KB of JSON.
 */
function mayBeListed(subject: SubjectDn): boolean {
  const names = [text(subject.CN), text(subject.O)].filter(Boolean);
  const file = bundledText();
  // A release that writes \u escapes could spell a name another way: then parse and compare.
  if (file.includes('\\u')) return true;
  return names.length > 0 && names.every((name) => file.includes(JSON.stringify(name)));
}

function text(v: unknown): string {
  return typeof v === 'string' ? v.trim() : '';
}

function matches(dn: Record<string, unknown>, subject: SubjectDn): boolean {
  // A DN with no name at all would match any certificate without one: never a product.
  if (!text(dn.CN) && !text(dn.O)) return false;
  return DN_FIELDS.every((field) => text(dn[field]) === text(subject[field]));
}

function level(p: ListedProduct): number {
  const n = p.product?.assurance?.maxAssuranceLevel;
  return typeof n === 'number' && Number.isFinite(n) ? n : 0;
}

/**
 * The listed generator product whose DN is the certificate's subject, or undefined. Where several
 * records name one DN (a product's later versions), a conformant one first, then the highest
 * assurance level, then the latest conformance date.
 */
export function conformingProductOf(subject: SubjectDn, given?: readonly ListedProduct[]): ConformingProduct | undefined {
  if (!given && !mayBeListed(subject)) return undefined;
  const list = given ?? bundledProducts();
  const found = list.filter((p) => p?.product?.productType === 'generatorProduct' && p.product.DN && typeof p.product.DN === 'object' && matches(p.product.DN, subject));
  if (!found.length) return undefined;
  const best = [...found].sort(
    (a, b) =>
      Number(text(b.status) === 'conformant') - Number(text(a.status) === 'conformant') ||
      level(b) - level(a) ||
      text(b.dates?.conformance).localeCompare(text(a.dates?.conformance)),
  )[0]!;
  return {
    applicant: text(best.applicant) || text(best.product!.DN!.O),
    product: text(best.product!.DN!.CN) || text(best.product!.DN!.O),
    max_assurance_level: level(best),
    status: text(best.status) || 'unknown',
  };
}
