// `check --html` from the command line, without a browser: one row per input in input order
// beside an unchanged NDJSON (or readable) output, a whole document, the examples' cards, and a
// path that cannot be written refused before any check runs.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/corpus.js';
import { parseLines, runCli } from '../helpers/run-cli.js';
import { login, remoteSetup, type RemoteSetup } from '../client/helpers.js';

const dir = mkdtempSync(join(tmpdir(), 'prov-check-html-'));
let r: RemoteSetup | undefined;
afterAll(async () => {
  rmSync(dir, { recursive: true, force: true });
  await r?.t.close();
});
const EXAMPLES = join(ROOT, 'examples');

const rowSources = (html: string) => [...html.matchAll(/<li data-n="\d+" data-source="([^"]*)"/g)].map((m) => m[1]);

describe('check --html', () => {
  it('with --json: the same NDJSON as without, and a row per input in the same order', async () => {
    const out = join(dir, 'examples.html');
    const plain = await runCli(['check', '--local', '--json', EXAMPLES]);
    const withHtml = await runCli(['check', '--local', '--json', '--html', out, EXAMPLES]);
    expect(withHtml.code).toBe(plain.code);
    const strip = (s: string) => parseLines(s).map(({ id, duration_ms, ...rest }) => rest);
    expect(strip(withHtml.stdout)).toEqual(strip(plain.stdout));
    const html = readFileSync(out, 'utf8');
    expect(html.startsWith('<!doctype html>')).toBe(true);
    expect(html.trimEnd().endsWith('</html>')).toBe(true);
    expect(rowSources(html)).toEqual(parseLines(plain.stdout).map((l) => l.source));
    expect(html).toMatch(/id="scan-end" class="scan-meta" data-files="\d+"/);
    // The signed example's card names its signer; the AI example's card its generator.
    expect(html).toContain('<span class="signer">Provenance Test Signer');
    expect(html).toContain('generator: ComfyUI');
    // No reference to anything outside the file.
    expect(html).not.toMatch(/\b(src|href)="(?!data:image\/)/);
  });

  it('with the readable report and one file (checked in this thread)', async () => {
    const out = join(dir, 'one.html');
    const run = await runCli(['check', '--local', '--html', out, join(EXAMPLES, 'signed.jpg')]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('signed by');
    expect(run.stderr).toContain(`report written to ${out}`);
    expect(rowSources(readFileSync(out, 'utf8'))).toEqual([join(EXAMPLES, 'signed.jpg')]);
  });

  it('a path that cannot be written: a usage error, nothing checked', async () => {
    const run = await runCli(['check', '--local', '--json', '--html', join(dir, 'missing', 'r.html'), EXAMPLES]);
    expect(run.code).toBe(2);
    expect(run.stderr).toMatch(/--html: cannot write .*missing\/r\.html/);
    expect(run.stdout).toBe('');
  });

  it('remote checks: the API\'s results, pictures and C2PA details from the local bytes; one call per file', async () => {
    r = await remoteSetup();
    expect((await login(r)).code).toBe(0);
    const out = join(dir, 'remote.html');
    const files = ['signed.jpg', 'camera.jpg', 'comfyui.png'].map((f) => join(EXAMPLES, f));
    const run = await r.cli(['check', '--remote', '--json', '--html', out, ...files]);
    expect(run.stderr).toContain('checking with the API at');
    expect(run.code).toBe(0);
    expect(await r.used()).toBe(3);
    const html = readFileSync(out, 'utf8');
    expect(rowSources(html)).toEqual(files);
    expect(html).toContain('checked on the API at http://127.0.0.1:');
    expect(html).toContain('<span class="signer">Provenance Test Signer');
    expect(html).toMatch(/<img data-sha="[0-9a-f]{64}" src="data:image\/webp;base64,/);
    // Trust was decided by the API, and the card says so.
    expect(html).not.toContain('no trust anchors configured');
  });
});
