// The daemon's two catalogues (CONTRACT "Detectors beyond the hosted catalogue"): by default it
// serves and runs every detector; with --catalogue hosted exactly the hosted five, and this
// project's own ids are unknown there, as they are to the hosted service. Real HTTP on 127.0.0.1,
// on both stores (a contract file: vitest.config.ts runs it on PostgreSQL and in test mode too).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detectorsBody } from '../../src/detectors/catalogue.js';
import { DETECTOR_IDS, HOSTED_DETECTOR_IDS } from '../../src/types.js';
import { ROOT } from '../helpers/corpus.js';
import { tinyJpeg } from '../fixtures/make.js';
import { parseLines, runCli } from '../helpers/run-cli.js';
import { b64, comparable, expectError, http, listen, makeApp, type HttpResult, type TestApp } from './helpers.js';

const photo = tinyJpeg({ seed: 31 });
const EXAMPLES = join(ROOT, 'examples');
const HOSTED = [...HOSTED_DETECTOR_IDS];
const used = (r: HttpResult) => Number(r.headers['x-quota-used']);

let hosted: TestApp;
let base: string;
let key: string;

beforeAll(async () => {
  hosted = await makeApp({ catalogue: 'hosted' });
  base = await listen(hosted.app);
  key = (await hosted.account('hosted-catalogue', 'growth')).key;
});
afterAll(async () => {
  await hosted?.close();
});

describe('a daemon with --catalogue hosted', () => {
  it('GET /v1/detectors lists exactly the hosted five, as the full catalogue describes them', async () => {
    const r = await http(base, 'GET', '/v1/detectors');
    expect(r.status).toBe(200);
    expect(r.body.detectors.map((d: { id: string }) => d.id)).toEqual(HOSTED);
    expect(r.body).toEqual(detectorsBody('hosted'));
  });

  it('POST /v1/detect without checks runs the five, and answers as `check --json --catalogue hosted`', async () => {
    const r = await http(base, 'POST', '/v1/detect', { key, json: { media: b64(photo) } });
    expect(r.status).toBe(200);
    expect(r.body.checks_run).toEqual(HOSTED);
    expect(r.body.matches.map((m: { check: string }) => m.check)).toEqual(HOSTED);
    const dir = mkdtempSync(join(tmpdir(), 'prov-hosted-'));
    try {
      writeFileSync(join(dir, 'photo.jpg'), photo);
      const cli = await runCli(['check', '--json', '--catalogue', 'hosted', join(dir, 'photo.jpg')], undefined, { PROVENANCE_CONFIG_DIR: dir });
      expect(cli.code).toBe(0);
      expect(comparable(r.body)).toEqual(comparable(parseLines(cli.stdout)[0]));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('a check outside the hosted five is a 400 on param checks, JSON or multipart, and counts nothing', async () => {
    const before = used(await http(base, 'POST', '/v1/detect', { key, json: { media: b64(photo), checks: ['c2pa'] } }));
    for (const id of ['generator_metadata', 'invisible_watermark']) {
      const r = await http(base, 'POST', '/v1/detect', { key, json: { media: b64(photo), checks: ['c2pa', id] } });
      const error = expectError(r, 400, 'invalid_request', 'checks');
      expect(error.message).toBe(`Check id "${id}" is not in the hosted catalogue. Valid check ids: ${HOSTED.join(', ')}.`);
      const form = new FormData();
      form.append('checks', id);
      form.append('file', new Blob([photo]), 'photo.jpg');
      expectError(await http(base, 'POST', '/v1/detect', { key, body: form }), 400, 'invalid_request', 'checks');
    }
    const after = await http(base, 'POST', '/v1/detect', { key, json: { media: b64(photo), checks: ['camera_reference'] } });
    expect(used(after)).toBe(before + 1);
  });

  it('the OpenAPI example of GET /v1/detectors is the hosted five too', async () => {
    const doc = (await http(base, 'GET', '/v1/openapi.json')).body;
    const example = doc.paths['/v1/detectors'].get.responses['200'].content['application/json'].example;
    expect(example.detectors.map((d: { id: string }) => d.id)).toEqual(HOSTED);
  });
});

describe('a daemon with the full catalogue (the default)', () => {
  let full: TestApp;
  let fullBase: string;
  beforeAll(async () => {
    full = await makeApp();
    fullBase = await listen(full.app);
  });
  afterAll(async () => {
    await full?.close();
  });

  it('lists the hosted five first, then generator_metadata and invisible_watermark, available', async () => {
    const r = await http(fullBase, 'GET', '/v1/detectors');
    expect(r.body.detectors.map((d: { id: string; status: string }) => [d.id, d.status]).slice(5)).toEqual([
      ['generator_metadata', 'available'],
      ['invisible_watermark', 'available'],
    ]);
    expect(r.body).toEqual(detectorsBody());
  });

  it('POST /v1/detect finds the generator record and the watermark, as `check --json` does, JSON and multipart', async () => {
    const { key: fullKey } = await full.account('ai-marks', 'growth');
    const comfy = readFileSync(join(EXAMPLES, 'comfyui.png'));
    const marked = readFileSync(join(EXAMPLES, 'sdxl-watermark.png'));
    const r = await http(fullBase, 'POST', '/v1/detect', { key: fullKey, json: { media: b64(comfy) } });
    expect(r.status).toBe(200);
    expect(r.body.checks_run).toEqual([...DETECTOR_IDS]);
    expect(r.body.matches.find((m: { check: string }) => m.check === 'generator_metadata')).toMatchObject({
      result: 'found',
      generator: { tool: 'comfyui', where: 'png:tEXt:prompt', seed: '91050358797301', model: 'flux1-dev.safetensors' },
    });
    const form = new FormData();
    form.append('checks', 'invisible_watermark');
    form.append('file', new Blob([marked]), 'marked.png');
    const m = await http(fullBase, 'POST', '/v1/detect', { key: fullKey, body: form });
    expect(m.status).toBe(200);
    expect(m.body.matches).toEqual([
      { check: 'invisible_watermark', result: 'found', confidence: 0.9, watermark: { method: 'dwtDct', payload: 'sdxl48', bits_matched: 48, bits_total: 48 } },
    ]);
    const cli = await runCli(['check', '--json', join(EXAMPLES, 'comfyui.png'), join(EXAMPLES, 'sdxl-watermark.png')]);
    const [comfyLine, markedLine] = parseLines(cli.stdout);
    expect(comparable(r.body)).toEqual(comparable(comfyLine));
    const whole = await http(fullBase, 'POST', '/v1/detect', { key: fullKey, json: { media: b64(marked) } });
    expect(comparable(whole.body)).toEqual(comparable(markedLine));
  });
});
