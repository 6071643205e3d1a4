// What an answer of a /v1 API must look like before anything uses it. A remote API is not
// trusted: its answer becomes terminal lines, an HTML report, cache files and a library user's
// objects, and each of those reads fields by their /v1 types (`claims.assertions.join`, a
// number of ingredients). An answer that is not the shape the OpenAPI document describes
// (GET /v1/openapi.json, src/daemon/http/routes/schemas.ts) is refused whole, as a ProtocolError.
//
// Written by hand, so the client needs no JSON Schema library at run time (ajv is a dev
// dependency only); test/client/v1-shapes.test.ts holds each of these to the served document's
// schema with ajv, on real answers and on every field removed, nulled or given another type.
// Problems name the field by its place (`matches[0].claims.assertions`), never by a value or a
// key the answer made up, so the message itself is safe to print.
//
// One documented difference from the served document: a detector id (a match's `check`, an entry
// of `checks_run`, a catalogue entry's `id`) is any lower-case identifier, not only the ids this
// build knows. The hosted catalogue changes over time (SPEC 9, CONTRACT "Detectors beyond the
// hosted catalogue"); were the ids an enum here, the day the service added a detector every
// remote check would fail as a bad answer. An unknown id is passed through: the cards show it by
// its id, the verdict takes no evidence from it (src/verdict/verdict.ts).
import { WATERMARK_PAYLOADS } from '../types.js';

/** The first problem found, as "where: what"; undefined when the value has the shape. */
type Shape = (value: unknown, at: string) => string | undefined;

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const has = (o: Record<string, unknown>, key: string) => Object.hasOwn(o, key);
const where = (at: string, key: string) => (at ? `${at}.${key}` : key);

const str: Shape = (v, at) => (typeof v === 'string' ? undefined : `${at}: not a string`);
const bool: Shape = (v, at) => (typeof v === 'boolean' ? undefined : `${at}: not a boolean`);

function num(options: { integer?: boolean; minimum?: number; maximum?: number } = {}): Shape {
  return (v, at) => {
    if (typeof v !== 'number' || !Number.isFinite(v)) return `${at}: not a number`;
    if (options.integer && !Number.isInteger(v)) return `${at}: not an integer`;
    if (options.minimum !== undefined && v < options.minimum) return `${at}: below ${options.minimum}`;
    if (options.maximum !== undefined && v > options.maximum) return `${at}: above ${options.maximum}`;
    return undefined;
  };
}

function oneOf(values: readonly string[]): Shape {
  return (v, at) => (typeof v === 'string' && values.includes(v) ? undefined : `${at}: not one of the documented values`);
}

/** A string of at most `max` characters (code points, as JSON Schema counts them). */
function strMax(max: number): Shape {
  return (v, at) => str(v, at) ?? (countCodePoints(v as string) > max ? `${at}: longer than ${max} characters` : undefined);
}

function countCodePoints(s: string): number {
  let n = 0;
  for (const _ of s) n++;
  return n;
}

const nullable = (shape: Shape): Shape => (v, at) => (v === null ? undefined : shape(v, at));

function list(item: Shape): Shape {
  return (v, at) => {
    if (!Array.isArray(v)) return `${at}: not a list`;
    for (let i = 0; i < v.length; i++) {
      const problem = item(v[i], `${at}[${i}]`);
      if (problem) return problem;
    }
    return undefined;
  };
}

/** An object: `required` keys present, each known key of its shape, unknown keys allowed or not. */
function object(properties: Record<string, Shape>, required: readonly string[], options: { closed?: boolean } = {}): Shape {
  return (v, at) => {
    if (!isObject(v)) return `${at || 'the answer'}: not an object`;
    for (const key of required) if (!has(v, key)) return `${where(at, key)}: missing`;
    for (const key of Object.keys(v)) {
      if (has(properties, key)) {
        const problem = properties[key]!(v[key], where(at, key));
        if (problem) return problem;
      } else if (options.closed) {
        return `${at || 'the answer'}: a field the document does not name`;
      }
    }
    return undefined;
  };
}

/**
 * The form of a detector id: a lower-case identifier, as every catalogue id is (`c2pa`,
 * `camera_reference`, `open_content_seal`). Starts with a letter, so never `__proto__`; at most 64
 * characters. Anchored, one character class: linear.
 */
export const DETECTOR_ID_FORM = /^[a-z][a-z0-9_]{0,63}$/;

const detectorId: Shape = (v, at) => str(v, at) ?? (DETECTOR_ID_FORM.test(v as string) ? undefined : `${at}: not a detector id (a lower-case identifier)`);

const claims = object(
  {
    claim_generator: str,
    assertions: list(str),
    signature_verified: bool,
    validation: object({ state: oneOf(['valid', 'invalid', 'trusted']), codes: list(str) }, ['state', 'codes']),
    digital_source_type: str,
    ai_generated: bool,
    signed_at: str,
    ingredients: num({ integer: true, minimum: 0 }),
    conforming_product: object({ applicant: str, product: str, max_assurance_level: num({ integer: true, minimum: 0 }), status: str }, ['applicant', 'product', 'max_assurance_level', 'status']),
  },
  ['claim_generator', 'assertions', 'signature_verified'],
);

const generator = object(
  {
    tool: str,
    app: str,
    where: str,
    model: str,
    seed: str,
    prompt: strMax(500),
    signature: oneOf(['valid', 'invalid']),
  },
  ['tool', 'where'],
  { closed: true },
);

const watermark = object(
  {
    method: oneOf(['dwtDct']),
    payload: oneOf(WATERMARK_PAYLOADS),
    bits_matched: num({ integer: true, minimum: 0 }),
    bits_total: num({ integer: true, minimum: 1 }),
  },
  ['method', 'payload', 'bits_matched', 'bits_total'],
  { closed: true },
);

const match = object(
  {
    check: detectorId,
    result: oneOf(['found', 'not_found', 'unavailable']),
    confidence: num({ minimum: 0, maximum: 1 }),
    issuer: nullable(str),
    claims,
    reason: str,
    generator,
    watermark,
    note: str,
  },
  ['check', 'result', 'confidence'],
);

const detectionResult = object(
  {
    id: str,
    media: object({ type: str, bytes: num({ integer: true }), sha256: str }, ['type', 'bytes', 'sha256']),
    matches: list(match),
    checks_run: list(detectorId),
    duration_ms: num({ integer: true, minimum: 0 }),
  },
  ['id', 'media', 'matches', 'checks_run', 'duration_ms'],
);

const uploadRecord = object(
  { id: str, bytes: num({ integer: true }), sha256: str, type: str, created_at: dateTime(), expires_at: dateTime() },
  ['id', 'bytes', 'sha256', 'type', 'created_at', 'expires_at'],
);

/** The document's `format: date-time` (RFC 3339), as the OpenAPI test's ajv reads it. */
function dateTime(): Shape {
  return (v, at) => str(v, at) ?? (/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/.test(v as string) ? undefined : `${at}: not a date-time`);
}

const detectorsBody = object(
  {
    detectors: list(
      object(
        {
          id: detectorId,
          name: str,
          description: str,
          media_types: list(str),
          status: oneOf(['available', 'planned']),
          inverse: bool,
        },
        ['id', 'name', 'description', 'media_types', 'status', 'inverse'],
      ),
    ),
  },
  ['detectors'],
);

/** Why `value` is not a /v1 detection result (POST /v1/detect's 200 answer); undefined when it is one. */
export function detectionResultProblem(value: unknown): string | undefined {
  return detectionResult(value, '');
}

/** Why `value` is not an upload record (POST /v1/uploads' 201 answer). */
export function uploadRecordProblem(value: unknown): string | undefined {
  return uploadRecord(value, '');
}

/** Why `value` is not a detectors list (GET /v1/detectors' 200 answer). */
export function detectorsBodyProblem(value: unknown): string | undefined {
  return detectorsBody(value, '');
}
