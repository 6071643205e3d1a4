// The day the hosted service adds a detector (SPEC 9: the catalogue changes over time), its
// answers name a check this build does not know. A stand-in API on 127.0.0.1 answers the real
// built CLI (bin/provenance.js, PROVENANCE_API_URL) with an extra detector id in `matches`, in
// `checks_run` and in GET /v1/detectors: the CLI reports it by its id (terminal card, --json,
// --summary, HTML report, `detectors --remote`), never refuses the answer as bad_response, and
// the verdict takes nothing from it. An id that is not a lower-case identifier is still refused.
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tinyJpeg } from '../fixtures/make.js';
import { parseLines, runBin } from '../helpers/run-cli.js';

let dir: string;
let file: string;
let sha: string;
let server: Server;
let base: string;
/** What the stand-in answers to POST /v1/detect. */
let detectAnswer: unknown = {};
/** How many POST /v1/detect reached the stand-in. */
let detectCalls = 0;

const NEW_ID = 'deepfake_score';
const IPTC_AI = 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia';

const result = (matches: Record<string, unknown>[], checksRun = matches.map((m) => m.check)) => ({
  id: 'chk_000000000000000000000000',
  media: { type: 'image/jpeg', bytes: 1000, sha256: sha },
  matches,
  checks_run: checksRun,
  duration_ms: 3,
});

/** The hosted five's answer to a photo, plus a found match of a detector added after this build. */
const withNewDetector = () =>
  result([
    { check: 'c2pa', result: 'not_found', confidence: 1 },
    { check: 'watermark_a', result: 'unavailable', confidence: 0, reason: 'This detector is planned.' },
    { check: 'camera_reference', result: 'not_found', confidence: 0.8 },
    { check: NEW_ID, result: 'found', confidence: 0.93 },
    { check: 'face_swap', result: 'not_found', confidence: 0.7, note: 'no face' },
    { check: 'lip_sync', result: 'unavailable', confidence: 0, reason: 'Video only.' },
  ]);

/** GET /v1/detectors of a catalogue with one detector more than this build knows. */
const CATALOGUE = {
  detectors: [
    { id: 'c2pa', name: 'C2PA', description: 'Content credentials.', media_types: ['image/jpeg'], status: 'available', inverse: false },
    { id: NEW_ID, name: 'Deepfake score', description: 'A detector this build does not know.', media_types: ['image/jpeg', 'video/mp4'], status: 'available', inverse: false },
  ],
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prov-unknown-detector-'));
  const bytes = tinyJpeg({ seed: 61 });
  file = join(dir, 'photo.jpg');
  writeFileSync(file, bytes);
  sha = createHash('sha256').update(bytes).digest('hex');
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const json = (status: number, body: unknown) => res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
      if (req.method === 'POST' && req.url === '/v1/detect') {
        detectCalls++;
        json(200, detectAnswer);
      } else if (req.method === 'GET' && req.url === '/v1/detectors') json(200, CATALOGUE);
      else json(404, { error: { type: 'not_found', message: 'no' } });
    });
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
}, 60_000);

afterAll(async () => {
  await new Promise<void>((ok) => server.close(() => ok()));
  rmSync(dir, { recursive: true, force: true });
});

function cli(args: string[]) {
  const cfg = mkdtempSync(join(dir, 'cfg-'));
  return runBin(args, { env: { PROVENANCE_CONFIG_DIR: cfg, PROVENANCE_API_URL: base, PROVENANCE_API_KEY: 'prv_anykeythestubdoesnotcheck', FORCE_COLOR: '0' } });
}

describe('a detector id this build does not know, from a remote API, to the built CLI', () => {
  it('--json: the answer is passed through whole, with the verdict of the checks this build knows', async () => {
    detectAnswer = withNewDetector();
    const run = await cli(['check', '--remote', '--no-cache', '--json', '--summary', file]);
    expect(run.stderr).not.toMatch(/TypeError|bad_response|at .*\.js:\d+/);
    expect(run.code).toBe(0);
    const [line] = parseLines(run.stdout);
    expect(line.error).toBeUndefined();
    expect(line.matches).toEqual(withNewDetector().matches);
    expect(line.checks_run).toEqual(['c2pa', 'watermark_a', 'camera_reference', NEW_ID, 'face_swap', 'lip_sync']);
    // A found match of an unknown check says nothing this build can weigh: no AI marker.
    expect(line.verdict).toEqual({ ai: 'none_found', evidence: [] });
    // --summary counts it under its id.
    const summary = JSON.parse(run.stderr.trim().split('\n').pop()!);
    expect(summary.checks[NEW_ID]).toEqual({ found: 1, not_found: 0, unavailable: 0 });
    expect(summary.checks.face_swap).toEqual({ found: 0, not_found: 1, unavailable: 0 });
  }, 60_000);

  it('the terminal card and the HTML report show each unknown check by its id and outcome', async () => {
    detectAnswer = withNewDetector();
    const report = join(dir, 'unknown.html');
    const run = await cli(['check', '--remote', '--no-cache', '--html', report, file]);
    expect(run.stderr).not.toMatch(/TypeError|bad_response/);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(new RegExp(`${NEW_ID}\\s+found \\(confidence 0\\.93\\)`));
    expect(run.stdout).toMatch(/face_swap\s+not found: no face/);
    expect(run.stdout).toMatch(/lip_sync\s+unavailable: Video only\./);
    expect(run.stdout).toMatch(/planned\s+watermark_a: not available yet/);
    expect(run.stdout).toContain('No AI marker found (that proves nothing)');
    const html = readFileSync(report, 'utf8');
    expect(html).toContain(`<h4>${NEW_ID}</h4>`);
    expect(html).toContain('<h4>lip_sync</h4>');
  }, 60_000);

  it('an unknown id that is an Object.prototype key (`constructor`) is counted as any other', async () => {
    detectAnswer = result([{ check: 'constructor', result: 'found', confidence: 0.5 }]);
    const run = await cli(['check', '--remote', '--no-cache', '--json', '--summary', file]);
    expect(run.code).toBe(0);
    expect(parseLines(run.stdout)[0].matches).toEqual([{ check: 'constructor', result: 'found', confidence: 0.5 }]);
    expect(JSON.parse(run.stderr.trim().split('\n').pop()!).checks.constructor).toEqual({ found: 1, not_found: 0, unavailable: 0 });
    expect(({} as Record<string, unknown>).found).toBeUndefined();
  }, 60_000);

  it('a known check beside an unknown one still makes the verdict', async () => {
    detectAnswer = result([
      { check: 'c2pa', result: 'found', confidence: 1, issuer: 'Example Org', claims: { claim_generator: 'Example Generator', assertions: ['c2pa.actions.v2'], signature_verified: false, validation: { state: 'valid', codes: [] }, digital_source_type: IPTC_AI } },
      { check: NEW_ID, result: 'found', confidence: 0.93 },
    ]);
    const run = await cli(['check', '--remote', '--no-cache', '--json', file]);
    expect(run.code).toBe(0);
    const [line] = parseLines(run.stdout);
    expect(line.verdict.ai).toBe('generated');
    expect(line.verdict.evidence.map((e: { check: string }) => e.check)).toEqual(['c2pa']);
  }, 60_000);

  it('`detectors --remote` lists the new detector', async () => {
    const listed = await cli(['detectors', '--remote']);
    expect(listed.code).toBe(0);
    expect(listed.stdout).toMatch(new RegExp(`${NEW_ID}\\s+available`));
    const json = await cli(['detectors', '--remote', '--json']);
    expect(JSON.parse(json.stdout)).toEqual(CATALOGUE);
  }, 60_000);

  it('a malformed id (not a lower-case identifier) is still refused whole as bad_response', async () => {
    // Each form is held to the validator in test/client/v1-shapes.test.ts; three of them here
    // through the whole CLI, in a match and in checks_run.
    for (const id of ['Deepfake', 'deep-fake', '__proto__']) {
      for (const body of [result([{ check: id, result: 'found', confidence: 1 }]), result([{ check: 'c2pa', result: 'not_found', confidence: 1 }], ['c2pa', id])]) {
        detectAnswer = body;
        const before = detectCalls;
        const run = await cli(['check', '--remote', '--no-cache', '--json', file]);
        expect(detectCalls - before, id).toBe(1);
        expect(run.code, id).toBe(1);
        const [line] = parseLines(run.stdout);
        expect(line.error.type, id).toBe('bad_response');
        expect(line.error.message, id).toMatch(/(matches\[0\]\.check|checks_run\[1\]): not a detector id/);
      }
    }
  }, 60_000);
});
