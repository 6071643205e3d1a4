// The client's checks of a remote answer (src/client/v1-shapes.ts, written by hand so the CLI
// needs no JSON Schema library) held to the OpenAPI document a real daemon serves
// (GET /v1/openapi.json): ajv, reading the document's own schema for each answer, and the
// client's check must agree on real answers and on every field of a rich answer removed,
// nulled, or given each other JSON type, and on unknown fields. A schema change that the client
// does not follow (or the other way round) fails here.
//
// One difference is by design (src/client/v1-shapes.ts, docs/CLIENT.md): the document's detector
// ids are this build's enum, while the client takes any well-formed id (a lower-case identifier)
// where a detector id goes, so that a detector the hosted service adds later is reported, not
// refused. The comparison reads such an answer as the document would read it with a known id in
// that place, and counts how many cases differ only so; a malformed id is refused by both.
import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DETECTOR_ID_FORM, detectionResultProblem, detectorsBodyProblem, uploadRecordProblem } from '../../src/client/v1-shapes.js';
import { DETECTOR_IDS } from '../../src/types.js';
import { tinyJpeg } from '../fixtures/make.js';
import { makeSignedSet, type SignedSet } from '../helpers/signed.js';
import { b64, http, listen, makeApp, type TestApp } from '../daemon/helpers.js';

let t: TestApp;
let base: string;
let key: string;
let doc: any;
let signed: SignedSet;
beforeAll(async () => {
  t = await makeApp();
  base = await listen(t.app);
  ({ key } = await t.account('shapes', 'custom', 1000));
  doc = (await http(base, 'GET', '/v1/openapi.json')).body;
  signed = await makeSignedSet();
}, 60_000);
afterAll(async () => {
  await t.close();
  signed.cleanup();
});

// As test/daemon/openapi.test.ts reads the document.
const ajv = new Ajv({ strict: false, allErrors: true });
ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);

const schemaOf = (path: string, method: string, status: number) => doc.paths[path][method].responses[String(status)].content['application/json'].schema;

/** Every JSON value a field could be given instead of its own. */
const OTHERS: unknown[] = [null, 0, -1, 0.5, 2, 1e21, '', 'x', 'x'.repeat(501), true, false, [], ['x'], [1], {}, { zz: 1 }];

/** `value` with the field at `path` changed by `change` (undefined: removed). */
function changed(value: unknown, path: (string | number)[], change: { to?: unknown; remove?: boolean; addKey?: boolean }): unknown {
  const copy = structuredClone(value);
  if (path.length === 0) return change.to;
  let parent: any = copy;
  for (const p of path.slice(0, -1)) parent = parent[p];
  const last = path[path.length - 1]!;
  if (change.remove) {
    if (Array.isArray(parent)) parent.splice(last as number, 1);
    else delete parent[last];
  } else if (change.addKey) {
    parent[last] = { ...parent[last], zz_unknown: 1 };
  } else {
    parent[last] = change.to;
  }
  return copy;
}

/** Every path in a JSON value, the root included. */
function paths(value: unknown, at: (string | number)[] = []): { path: (string | number)[]; value: unknown }[] {
  const out = [{ path: at, value }];
  if (Array.isArray(value)) value.forEach((v, i) => out.push(...paths(v, [...at, i])));
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) out.push(...paths(v, [...at, k]));
  return out;
}

/** Every variant of `value` this test compares the two checks on. */
function variants(value: unknown): unknown[] {
  const out: unknown[] = [value];
  for (const { path, value: v } of paths(value)) {
    if (path.length) out.push(changed(value, path, { remove: true }));
    for (const to of OTHERS) out.push(changed(value, path, { to }));
    if (v && typeof v === 'object' && !Array.isArray(v)) out.push(changed(value, path, { addKey: true }));
    if (Array.isArray(v) && v.length) out.push(changed(value, path, { to: [...v, v[0]] }));
  }
  return out;
}

const isUnknownId = (v: unknown) => typeof v === 'string' && !(DETECTOR_IDS as readonly string[]).includes(v) && DETECTOR_ID_FORM.test(v);

/**
 * `value` with every well-formed detector id this build does not know, where a detector id goes
 * (a match's `check`, a `checks_run` entry, a catalogue entry's `id`), replaced by a known one;
 * undefined when there is none. The document, given this, answers as it would for a later catalogue.
 */
function withKnownIds(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const copy = structuredClone(value) as Record<string, unknown>;
  let replaced = false;
  const known = (v: unknown) => {
    if (!isUnknownId(v)) return v;
    replaced = true;
    return 'c2pa';
  };
  if (Array.isArray(copy.matches)) for (const m of copy.matches) if (m && typeof m === 'object' && 'check' in m) m.check = known(m.check);
  if (Array.isArray(copy.checks_run)) copy.checks_run = copy.checks_run.map(known);
  if (Array.isArray(copy.detectors)) for (const d of copy.detectors) if (d && typeof d === 'object' && 'id' in d) d.id = known(d.id);
  return replaced ? copy : undefined;
}

/** Cases that differ from the document only by an unknown, well-formed detector id, per call of agree(). */
let lastUnknownIds = 0;

/** Compares the two on each variant; returns how many were compared and how many were valid. */
function agree(schema: object, problem: (v: unknown) => string | undefined, cases: unknown[]): { compared: number; valid: number } {
  const validate = ajv.compile(schema);
  const disagreements: string[] = [];
  let valid = 0;
  lastUnknownIds = 0;
  for (const c of cases) {
    const known = withKnownIds(c);
    if (known !== undefined && validate(c) !== true && validate(known) === true) lastUnknownIds++;
    const byDocument = validate(known ?? c) === true;
    const byClient = problem(c) === undefined;
    if (byDocument) valid++;
    if (byDocument !== byClient) disagreements.push(`${JSON.stringify(c).slice(0, 300)}: document ${byDocument ? 'accepts' : `refuses (${ajv.errorsText(validate.errors)})`}, client ${byClient ? 'accepts' : `refuses (${problem(c)})`}`);
  }
  expect(disagreements).toEqual([]);
  return { compared: cases.length, valid };
}

/** An answer with every field the document names: each check's outcomes, claims whole, a null issuer. */
const RICH = {
  id: 'chk_000000000000000000000000',
  media: { type: 'image/jpeg', bytes: 1234, sha256: 'a'.repeat(64) },
  matches: [
    {
      check: 'c2pa',
      result: 'found',
      confidence: 1,
      issuer: 'Example Org',
      claims: {
        claim_generator: 'tool/1.0',
        assertions: ['c2pa.actions', 'c2pa.hash.data'],
        signature_verified: false,
        validation: { state: 'valid', codes: ['signingCredential.untrusted'] },
        digital_source_type: 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia',
        ai_generated: true,
        signed_at: '2026-11-15T12:00:00Z',
        ingredients: 2,
      },
    },
    { check: 'camera_reference', result: 'found', confidence: 0.9, issuer: null },
    { check: 'generator_metadata', result: 'found', confidence: 0.9, generator: { tool: 'comfyui', app: 'ComfyUI', where: 'png:tEXt:prompt', model: 'm', seed: '1', prompt: 'p', signature: 'valid' } },
    { check: 'invisible_watermark', result: 'found', confidence: 0.95, watermark: { method: 'dwtDct', payload: 'sdxl48', bits_matched: 47, bits_total: 48 } },
    { check: 'watermark_a', result: 'unavailable', confidence: 0, reason: 'planned' },
    { check: 'open_content_seal', result: 'not_found', confidence: 0, note: 'too small' },
  ],
  checks_run: ['c2pa', 'camera_reference', 'generator_metadata', 'invisible_watermark', 'watermark_a', 'open_content_seal'],
  duration_ms: 12,
};

describe("the client's checks agree with the served OpenAPI document", () => {
  it('POST /v1/detect: real answers of a real daemon, and every change to a rich answer', async () => {
    const schema = schemaOf('/v1/detect', 'post', 200);
    const real = [];
    for (const bytes of [tinyJpeg({ seed: 7 }), signed.jpeg, signed.png]) {
      const r = await http(base, 'POST', '/v1/detect', { key, json: { media: b64(bytes) } });
      expect(r.status).toBe(200);
      real.push(r.body);
    }
    // The signed answers carry claims whole: the document and the client check them field by field.
    expect(real[1].matches.find((m: any) => m.check === 'c2pa').claims.assertions.length).toBeGreaterThan(0);
    for (const r of real) expect(detectionResultProblem(r)).toBeUndefined();
    const { compared, valid } = agree(schema, detectionResultProblem, [...real, ...real.flatMap((r) => variants(r).slice(0, 400)), ...variants(RICH)]);
    expect(compared).toBeGreaterThan(2000);
    expect(valid).toBeGreaterThan(100); // unknown fields where the document allows them, and the real answers
    // `check` or a checks_run entry set to 'x' (in OTHERS): the document refuses, the client takes it.
    expect(lastUnknownIds).toBeGreaterThan(10);
  }, 60_000);

  it('POST /v1/uploads: a real record, and every change to it', async () => {
    const r = await http(base, 'POST', '/v1/uploads', { key, body: tinyJpeg({ seed: 8 }), headers: { 'content-type': 'application/octet-stream' } });
    expect(r.status).toBe(201);
    const { compared } = agree(schemaOf('/v1/uploads', 'post', 201), uploadRecordProblem, [...variants(r.body), { ...r.body, created_at: 'yesterday' }]);
    expect(compared).toBeGreaterThan(100);
  });

  it('GET /v1/detectors: the real list, and every change to it', async () => {
    const r = await http(base, 'GET', '/v1/detectors');
    const { compared } = agree(schemaOf('/v1/detectors', 'get', 200), detectorsBodyProblem, variants({ detectors: r.body.detectors.slice(0, 2) }));
    expect(compared).toBeGreaterThan(200);
    expect(lastUnknownIds).toBeGreaterThan(0);
  });

  it('a detector id this build does not know: taken when it is a lower-case identifier, refused otherwise', () => {
    const withId = (id: unknown) => {
      const r = structuredClone(RICH) as any;
      r.matches.push({ check: id, result: 'found', confidence: 0.9 });
      r.checks_run.push(id);
      return r;
    };
    for (const id of ['deepfake_score', 'x', 'constructor', 'a'.repeat(64), 'v2_detector9']) expect(detectionResultProblem(withId(id)), id).toBeUndefined();
    const malformed = ['Deepfake', 'deep-fake', 'deepfake score', '_private', '__proto__', '9lives', '', 'a'.repeat(65), 'dé', ' c2pa', 'c2pa\n'];
    for (const id of malformed) {
      expect(detectionResultProblem(withId(id)), id).toBe('matches[6].check: not a detector id (a lower-case identifier)');
      const onlyRun = structuredClone(RICH) as any;
      onlyRun.checks_run.push(id);
      expect(detectionResultProblem(onlyRun), id).toBe('checks_run[6]: not a detector id (a lower-case identifier)');
    }
    expect(detectionResultProblem(withId(7))).toBe('matches[6].check: not a string');
    const catalogue = (id: string) => ({ detectors: [{ id, name: 'n', description: 'd', media_types: ['image/jpeg'], status: 'available', inverse: false }] });
    expect(detectorsBodyProblem(catalogue('deepfake_score'))).toBeUndefined();
    expect(detectorsBodyProblem(catalogue('Deep Fake'))).toBe('detectors[0].id: not a detector id (a lower-case identifier)');
  });

  it('a detector id of 100,000 characters is refused at once (1 s is a generous bound)', () => {
    const r = structuredClone(RICH) as any;
    r.matches[0].check = 'a'.repeat(100_000) + '-';
    const t0 = performance.now();
    expect(detectionResultProblem(r)).toBe('matches[0].check: not a detector id (a lower-case identifier)');
    expect(performance.now() - t0).toBeLessThan(1000);
  });

  it('names the field, never a value or a key from the answer', () => {
    const evil = structuredClone(RICH) as any;
    delete evil.matches[0].claims.assertions;
    expect(detectionResultProblem(evil)).toBe('matches[0].claims.assertions: missing');
    evil.matches[0].claims.assertions = [];
    evil.matches[0].claims.ingredients = '<img src=x onerror=alert(1)>';
    expect(detectionResultProblem(evil)).toBe('matches[0].claims.ingredients: not a number');
    evil.matches[0].claims.ingredients = 1;
    evil.matches[2].generator['\u001b]0;title\u0007'] = 'x';
    expect(detectionResultProblem(evil)).toBe('matches[2].generator: a field the document does not name');
  });
});
