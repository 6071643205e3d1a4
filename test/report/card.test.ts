// The HTML card and report rows (src/report/): every string from a file is escaped, so a prompt,
// a file name or a signer cannot put markup or script into the report or the Verify page; the
// card says what the terminal card says; thumbnails are small, and never throw past a clear error.
import { describe, expect, it } from 'vitest';
import { detailCard, errorCard, resultTags } from '../../src/report/card.js';
import { esc, safeImageUrl } from '../../src/report/html.js';
import { reportErrorRow, reportHead, reportRow, reportTail } from '../../src/report/scan-report.js';
import { REPORT_SCRIPT } from '../../src/report/report-script.js';
import { makeThumbnail, thumbnailOrNone, ThumbnailError } from '../../src/media/thumbnail.js';
import { loadSharp } from '../../src/media/pixels.js';
import type { DetectionResult } from '../../src/types.js';
import { tinyJpeg, tinyMp4 } from '../fixtures/make.js';
import { makeStyle } from '../../src/ui/style.js';
import { formatResult } from '../../src/ui/text-report.js';

const HOSTILE = '<script>alert(1)</script>"\'><img src=x onerror=alert(2)>&amp;';

function hostileResult(): DetectionResult {
  return {
    id: 'chk_test',
    media: { type: 'image/png', bytes: 1234, sha256: 'a'.repeat(64) },
    checks_run: ['c2pa', 'generator_metadata', 'invisible_watermark', 'camera_reference'],
    duration_ms: 3,
    matches: [
      {
        check: 'c2pa',
        result: 'found',
        confidence: 1,
        issuer: `Evil ${HOSTILE}`,
        claims: {
          claim_generator: `gen ${HOSTILE}`,
          assertions: [`a.${HOSTILE}`],
          signature_verified: false,
          validation: { state: 'valid', codes: ['signingCredential.untrusted'] },
          digital_source_type: 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia',
          ai_generated: true,
          signed_at: '2026-11-01T10:00:00Z',
          ingredients: 0,
        },
      },
      {
        check: 'generator_metadata',
        result: 'found',
        confidence: 0.9,
        generator: { tool: 'comfyui', app: `App ${HOSTILE}`, where: `png:tEXt:${HOSTILE}`, model: `m ${HOSTILE}`, seed: '12345678901234567890', prompt: `a cat ${HOSTILE}` },
      },
      { check: 'invisible_watermark', result: 'found', confidence: 0.98, watermark: { method: 'dwtDct', payload: 'sdxl48', bits_matched: 47, bits_total: 48 } },
      { check: 'camera_reference', result: 'unavailable', confidence: 0, reason: `Not a JPEG ${HOSTILE}` },
    ],
  };
}

/** Every tag name in the markup: nothing but what the renderer writes itself. */
function tags(html: string): Set<string> {
  return new Set([...html.matchAll(/<([a-zA-Z][a-zA-Z0-9]*)/g)].map((m) => m[1]!.toLowerCase()));
}

describe('escaping', () => {
  it('a prompt, an app, a signer, a reason and a source with <script> stay text in the card', () => {
    const html = detailCard(`photo ${HOSTILE}.png`, hostileResult());
    expect(html).not.toMatch(/<script|<img src=x|onerror=alert\(2\)>/i);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(html).toContain('&amp;amp;'); // the file's own "&amp;" is shown as typed
    for (const t of tags(html)) expect(['article', 'header', 'div', 'h3', 'p', 'code', 'section', 'h4', 'span', 'strong', 'dl', 'dt', 'dd', 'ul', 'li']).toContain(t);
  });

  it('the report row escapes data-source and data-search (attribute values) as well as the text', () => {
    const row = reportRow(7, `x" data-evil="1 ${HOSTILE}`, hostileResult());
    expect(row).not.toContain('data-evil="1');
    expect(row).not.toMatch(/<script|<img src=x/i);
    expect(row).toContain('data-source="x&quot; data-evil=&quot;1 &lt;script&gt;');
    expect(row).toContain('data-result-c2pa="found"');
    expect(row).toContain('data-result-generator_metadata="found"');
    expect(row).toContain('data-result-camera_reference="unavailable"');
    expect(errorCard(HOSTILE, { type: 'not_found', message: HOSTILE })).not.toMatch(/<script/);
    expect(reportErrorRow(1, HOSTILE, { type: 'x', message: HOSTILE })).not.toMatch(/<script|<img src=x/);
  });

  it('the card is a comment until its row is opened, and no file can end that comment early', () => {
    const row = reportRow(3, `a--> b --!> c <!-- d ${HOSTILE}`, hostileResult());
    const body = row.slice(row.indexOf('</summary>') + '</summary>'.length);
    expect(body.startsWith('<!--<article class="card"')).toBe(true);
    // The comment's only end is the one the row writes, right before the row closes.
    expect([...body.matchAll(/--!?>/g)].map((m) => m.index)).toEqual([body.indexOf('--></details></li>')]);
  });

  it('only data: URLs of raster images become an img src', () => {
    expect(safeImageUrl('data:image/webp;base64,AAAA')).toBe('data:image/webp;base64,AAAA');
    for (const bad of ['javascript:alert(1)', 'data:text/html;base64,AAAA', 'data:image/svg+xml;base64,AAAA', 'https://example.com/a.jpg', 'data:image/png;base64,AA"onerror="x']) {
      expect(safeImageUrl(bad)).toBeUndefined();
    }
    const html = detailCard('a.png', hostileResult(), { thumbnail: 'javascript:alert(1)', claimThumbnail: 'data:image/svg+xml;base64,AAAA' });
    expect(html).not.toContain('<img');
  });

  it('esc turns lone surrogates into U+FFFD (the file stays valid UTF-8)', () => {
    expect(esc('a\ud800b')).toBe('a\ufffdb');
    expect(esc('😀')).toBe('😀');
  });
});

describe('the verdict line (issue 31)', () => {
  it('opens the card, under the name, with the maker the file names escaped (HTML) and made printable (terminal)', () => {
    const result = hostileResult();
    result.matches[0]!.claims!.claim_generator = `gen ${HOSTILE}\u001b[2J`;
    const html = detailCard('a.png', result);
    const verdict = /<p class="verdict verdict-generated">([^<]*)<\/p>/.exec(html);
    expect(verdict?.[1]).toBe(
      'AI-generated: gen &lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&gt;&lt;img src=x onerror=alert(2)&gt;&amp;amp;\\x1b[2J, as claimed (signed C2PA manifest whose signer is not on the trust list, so its names are unverified)',
    );
    expect(html.indexOf('class="verdict')).toBeLessThan(html.indexOf('class="meta"'));
    const terminal = formatResult('a.png', result, makeStyle(false)).split('\n');
    expect(terminal[1]).toBe(`  AI-generated: gen ${HOSTILE}\\x1b[2J, as claimed (signed C2PA manifest whose signer is not on the trust list, so its names are unverified)`);
    expect(terminal.join('\n')).not.toContain('\u001b');
  });
});

describe('what the card says', () => {
  it('the terminal card\'s words: AI origin, signer, time, tool, validation, generator, watermark, reason', () => {
    const text = detailCard('a.png', hostileResult()).replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    expect(text).toContain('AI-generated yes: trainedAlgorithmicMedia (made by a generative AI model)');
    expect(text).toContain('signed at 2026-11-01 10:00:00 UTC');
    expect(text).toContain('signer not checked against a trust list');
    expect(text).toContain('generator: App &lt;script&gt;');
    expect(text).toContain('seed 12345678901234567890');
    expect(text).toContain('invisible watermark: SDXL (47/48 bits)');
    expect(text).toContain('the dwtDct mark of the SDXL and Stable Video Diffusion pipelines');
    expect(text).toContain('unavailable Not a JPEG');
    expect(resultTags(hostileResult()).sort()).toEqual(['ai', 'found', 'unavailable']);
  });

  it("the CLI's unsigned XMP hint, as the terminal shows it", () => {
    const hints = { iptc_digital_source_type: 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia' };
    const text = detailCard('a.png', hostileResult(), { hints }).replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
    expect(text).toContain('xmp hint says AI-generated: IPTC digital source type trainedAlgorithmicMedia');
    expect(text).toContain('unsigned XMP metadata (Iptc4xmpExt:DigitalSourceType): anyone can write, edit or remove it');
  });

  it('a report is a whole document: head, rows, tail', () => {
    const doc = reportHead({ startedAt: new Date(0), inputs: [HOSTILE], where: 'this machine' }) + reportRow(0, 'a.png', hostileResult()) + reportTail({ files: 1, elapsedMs: 2000, interrupted: false });
    expect(doc.startsWith('<!doctype html>')).toBe(true);
    expect(doc.trimEnd().endsWith('</html>')).toBe(true);
    expect(doc).toContain('1 input checked in 2.0 s (0.5 files/s).');
    // The only scripts are the report's own.
    expect(doc.match(/<script/g)).toHaveLength(1);
    expect(doc).toContain("default-src 'none'");
  });

  it('the page script stays small (it only counts, filters, searches and sorts rows)', () => {
    expect(Buffer.byteLength(REPORT_SCRIPT)).toBeLessThan(4096);
  });
});

describe('thumbnails', () => {
  it('a JPEG becomes a WebP data URL of at most 160 px', async () => {
    const url = await makeThumbnail(tinyJpeg({ width: 640, height: 320 }));
    expect(url).toMatch(/^data:image\/webp;base64,/);
    const sharp = await loadSharp();
    const meta = await sharp(Buffer.from(url.split(',')[1]!, 'base64')).metadata();
    expect(meta.width).toBe(160);
    expect(meta.height).toBe(80);
  });

  it('bytes that are not a picture give a ThumbnailError, or undefined from thumbnailOrNone', async () => {
    await expect(makeThumbnail(new TextEncoder().encode('not a picture'))).rejects.toBeInstanceOf(ThumbnailError);
    await expect(makeThumbnail(tinyMp4())).rejects.toBeInstanceOf(ThumbnailError);
    expect(await thumbnailOrNone(new Uint8Array(0))).toBeUndefined();
  });
});
