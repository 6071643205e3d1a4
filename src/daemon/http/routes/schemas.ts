// JSON Schemas of the /v1 shapes, for the OpenAPI document (GET /v1/openapi.json, /docs).
// Requests are checked in code (detect-input.ts) so each refusal gets the CONTRACT's error
// type, field and wording; these schemas describe the same rules.
import { DETECTOR_IDS, WATERMARK_PAYLOADS } from '../../../types.js';
import { ERROR_TYPES, PLAN_IDS, type ErrorType } from '../../contract/api-types.js';
import { MAX_FORCED_DELAY_MS, type ForcedKind } from '../../testing/forced-answers.js';

export const errorSchema = {
  type: 'object',
  description: 'CONTRACT error body, on every error of every route.',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['type', 'message'],
      additionalProperties: false,
      properties: {
        type: { type: 'string', enum: [...ERROR_TYPES] },
        message: { type: 'string' },
        param: { type: 'string' },
      },
    },
  },
} as const;

/** An error response: the CONTRACT body with an example of each type the status can carry. */
export function errorResponse(description: string, examples: Partial<Record<ErrorType, { message: string; param?: string }>>, headers: object = { 'Request-Id': requestIdHeader }) {
  return {
    description,
    headers,
    content: {
      'application/json': {
        schema: errorSchema,
        examples: Object.fromEntries(Object.entries(examples).map(([type, e]) => [type, { summary: type, value: { error: { type, ...e } } }])),
      },
    },
  };
}

const detectorId = { type: 'string', enum: [...DETECTOR_IDS] } as const;

export const detectorsBodySchema = {
  type: 'object',
  required: ['detectors'],
  properties: {
    detectors: {
      type: 'array',
      items: {
        type: 'object',
        required: ['id', 'name', 'description', 'media_types', 'status', 'inverse'],
        properties: {
          id: detectorId,
          name: { type: 'string' },
          description: { type: 'string' },
          media_types: { type: 'array', items: { type: 'string' } },
          status: { type: 'string', enum: ['available', 'planned'] },
          inverse: { type: 'boolean' },
        },
      },
    },
  },
} as const;

/** On a found generator_metadata match (CONTRACT "Detectors beyond the hosted catalogue"). */
const generatorSchema = {
  type: 'object',
  description: 'What an image generator wrote into the file. Metadata is writable by anyone; `signature` is set only for records the generator signs (NovelAI).',
  required: ['tool', 'where'],
  additionalProperties: false,
  properties: {
    tool: { type: 'string', description: 'automatic1111, comfyui, invokeai, novelai, swarmui, fooocus, ruinedfooocus, stability_matrix, tensorart, midjourney, google_ai, openai, adobe_firefly, or another lower-case name the file states unambiguously.' },
    app: { type: 'string', description: 'The program by name when the record says which (a fork of AUTOMATIC1111, a version).' },
    where: { type: 'string', description: 'The record read, e.g. `png:tEXt:parameters`, `exif:UserComment`, `xmp:photoshop:Credit`, `alpha-lsb:stealth_pngcomp`.' },
    model: { type: 'string' },
    seed: { type: 'string', description: 'A string: seeds go past 2^53.' },
    prompt: { type: 'string', maxLength: 500 },
    signature: { type: 'string', enum: ['valid', 'invalid'] },
  },
} as const;

/** On a found c2pa match (CONTRACT "Detection result"). Open to fields added later; the ones
 * named here have these types, which clients rely on (src/client/v1-shapes.ts checks them). */
const claimsSchema = {
  type: 'object',
  description: "What the active manifest's claim says.",
  required: ['claim_generator', 'assertions', 'signature_verified'],
  additionalProperties: true,
  properties: {
    claim_generator: { type: 'string', description: "The manifest's claim_generator (for claim v2, claim_generator_info's first name and version)." },
    assertions: { type: 'array', items: { type: 'string' }, description: 'Assertion labels of the active manifest.' },
    signature_verified: { type: 'boolean', description: 'true only when the state is trusted against the anchors in use (the C2PA Trust List and TSA Trust List by default, or the operator\'s --trust-anchors); always false with --catalogue hosted and in test mode.' },
    validation: {
      type: 'object',
      required: ['state', 'codes'],
      properties: {
        state: { type: 'string', enum: ['valid', 'invalid', 'trusted'] },
        codes: { type: 'array', items: { type: 'string' } },
      },
    },
    digital_source_type: { type: 'string', description: 'IPTC digital source type URI named by the active manifest\'s actions.' },
    ai_generated: { type: 'boolean' },
    signed_at: { type: 'string', description: 'The signature time, ISO 8601 UTC.' },
    ingredients: { type: 'integer', minimum: 0, description: 'How many ingredients the active manifest lists.' },
    conforming_product: {
      type: 'object',
      description: "Only for a trusted signer: the C2PA Conforming Products List's generator product its certificate names.",
      required: ['applicant', 'product', 'max_assurance_level', 'status'],
      properties: {
        applicant: { type: 'string' },
        product: { type: 'string' },
        max_assurance_level: { type: 'integer', minimum: 0 },
        status: { type: 'string' },
      },
    },
  },
} as const;

/** On a found invisible_watermark match. */
const watermarkSchema = {
  type: 'object',
  required: ['method', 'payload', 'bits_matched', 'bits_total'],
  additionalProperties: false,
  properties: {
    method: { type: 'string', enum: ['dwtDct'] },
    payload: { type: 'string', enum: [...WATERMARK_PAYLOADS] },
    bits_matched: { type: 'integer', minimum: 0 },
    bits_total: { type: 'integer', minimum: 1 },
  },
} as const;

export const detectionResultSchema = {
  type: 'object',
  required: ['id', 'media', 'matches', 'checks_run', 'duration_ms'],
  properties: {
    id: { type: 'string', description: '`chk_` + 24 URL-safe characters.' },
    media: {
      type: 'object',
      required: ['type', 'bytes', 'sha256'],
      properties: { type: { type: 'string' }, bytes: { type: 'integer' }, sha256: { type: 'string' } },
    },
    matches: {
      type: 'array',
      items: {
        type: 'object',
        required: ['check', 'result', 'confidence'],
        additionalProperties: true,
        properties: {
          check: detectorId,
          result: { type: 'string', enum: ['found', 'not_found', 'unavailable'] },
          confidence: { type: 'number', minimum: 0, maximum: 1 },
          issuer: { type: 'string', nullable: true },
          claims: claimsSchema,
          reason: { type: 'string' },
          generator: generatorSchema,
          watermark: watermarkSchema,
          note: { type: 'string', description: 'A sentence on a result that needs one, e.g. an invisible_watermark not_found on a picture too small or too large to carry a mark.' },
        },
      },
    },
    checks_run: { type: 'array', items: detectorId },
    duration_ms: { type: 'integer', minimum: 0 },
  },
} as const;

export const detectJsonBodySchema = {
  type: 'object',
  description: 'Exactly one of url, media, upload.',
  properties: {
    url: { type: 'string', format: 'uri', description: 'Public http(s) URL; 25 MB, 15 s.' },
    media: { type: 'string', description: 'The file as base64; 4 MB decoded.' },
    upload: { type: 'string', description: 'Id of an earlier upload (upl_...); 25 MB.' },
    checks: { type: 'array', items: detectorId, description: 'Detector ids; all when omitted.' },
  },
} as const;

export const detectMultipartBodySchema = {
  type: 'object',
  required: ['file'],
  properties: {
    file: { type: 'string', format: 'binary', description: 'The file; 4 MB.' },
    checks: { type: 'string', description: 'Comma-separated detector ids, or repeat the field.' },
  },
} as const;

export const uploadRecordSchema = {
  type: 'object',
  required: ['id', 'bytes', 'sha256', 'type', 'created_at', 'expires_at'],
  properties: {
    id: { type: 'string', description: '`upl_...`' },
    bytes: { type: 'integer' },
    sha256: { type: 'string' },
    type: { type: 'string' },
    created_at: { type: 'string', format: 'date-time' },
    expires_at: { type: 'string', format: 'date-time' },
  },
} as const;

// @fastify/swagger wraps each response header's JSON schema in {schema, description} itself.
const header = (description: string, schema: object = { type: 'integer', minimum: 0 }) => ({ ...schema, description });

/** On every response: the id the daemon's request log keeps (`provenance daemon requests`). */
export const requestIdHeader = header('Id of this request in the daemon\'s request log (`provenance daemon requests`).', { type: 'string', pattern: '^req_[0-9A-Za-z]{20}$' });

/** On every response of a request with a valid key to POST /v1/detect. */
export const limitHeaders = {
  'Request-Id': requestIdHeader,
  'X-Quota-Limit': header('API calls allowed this month.'),
  'X-Quota-Used': header('API calls used this month, including this one.'),
  'X-Quota-Remaining': header('API calls left this month.'),
  'X-Quota-Reset': header('First instant of next month, ISO 8601 UTC.', { type: 'string', pattern: '^\\d{4}-\\d{2}-01T00:00:00Z$' }),
  'RateLimit-Limit': header('Requests allowed per minute for this key.'),
  'RateLimit-Remaining': header('Requests left in the current 60 s window.'),
  'RateLimit-Reset': header('Seconds until a slot in the window frees.'),
} as const;

export const retryAfterHeader = header('Seconds to wait before retrying (on a 429, and on a 503 that says when to retry).', { type: 'integer', minimum: 1 });

export const planSchema = { type: 'string', enum: [...PLAN_IDS] } as const;

/** On a 401: the id, and the scheme the key goes in. */
export const unauthorizedHeaders = {
  'Request-Id': requestIdHeader,
  'WWW-Authenticate': header('Always "Bearer".', { type: 'string', enum: ['Bearer'] }),
} as const;

/**
 * The optional request header of test mode (Provenance-Test-Response), as a route's `headers`
 * schema: @fastify/swagger lists it as a header parameter with the values that route allows.
 */
export function testResponseHeaders(allowed: readonly ForcedKind[]) {
  const errors = allowed.filter((k) => k !== 'delay');
  const names = [...errors, ...(allowed.includes('delay') ? ['delay=MS'] : [])];
  return {
    type: 'object',
    properties: {
      'Provenance-Test-Response': {
        type: 'string',
        pattern: `^(${[...errors, ...(allowed.includes('delay') ? ['delay=[0-9]{1,5}'] : [])].join('|')})$`,
        description:
          `Test mode only (a daemon started with --test-mode; any other daemon refuses the header with 400): answer as that condition would, counting nothing. Here: ${names.join(', ')} (MS up to ${MAX_FORCED_DELAY_MS.toLocaleString('en-US')}; a delay then runs the request for real). Another value is a 400 naming the header.`,
      },
    },
  } as const;
}
