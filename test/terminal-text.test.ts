// What a file supplies reaches the terminal only through printable() (src/ui/terminal-text.ts):
// a signer, a claim generator, an assertion label, a generator's prompt, a reason, a file name.
// An escape sequence among them could move the cursor, rewrite earlier lines or set the title.
import { describe, expect, it } from 'vitest';
import { printable, shortened } from '../src/ui/terminal-text.js';
import { makeStyle } from '../src/ui/style.js';
import { formatError, formatResult } from '../src/ui/text-report.js';
import type { DetectionResult } from '../src/types.js';

const ESC = '\u001b';
const BEL = '\u0007';

describe('printable', () => {
  it('escapes control and format characters, keeps the rest', () => {
    expect(printable(`a${ESC}[2Jb${BEL}c\u202ed\u0000é漢`)).toBe('a\\x1b[2Jb\\x07c\\u202ed\\x00é漢');
    expect(printable('line\nbreak\ttab')).toBe('line\\x0abreak\\x09tab');
  });
  it('shortened cuts whole code points, with an ellipsis', () => {
    expect(shortened('abcdef', 4)).toBe('abc…');
    expect(shortened('ab😀cd', 3)).toBe('ab…');
    expect(shortened('abc', 3)).toBe('abc');
  });
});

describe('the readable report never writes a control character from the file', () => {
  const hostile = `${ESC}]0;pwned${BEL}${ESC}[2J`;
  const result: DetectionResult = {
    id: 'chk_test',
    media: { type: 'image/png', bytes: 10, sha256: '0'.repeat(64) },
    matches: [
      {
        check: 'c2pa',
        result: 'found',
        confidence: 1,
        issuer: `Signer ${hostile}`,
        claims: { claim_generator: `gen ${hostile}`, assertions: [`c2pa.actions${hostile}`], signature_verified: false, digital_source_type: `http://cv.iptc.org/newscodes/digitalsourcetype/x${hostile}` },
      },
      { check: 'camera_reference', result: 'unavailable', confidence: 0, reason: `The manifest is stored remotely at https://x/${hostile} and remote manifests are not fetched.` },
      { check: 'generator_metadata', result: 'found', confidence: 0.85, generator: { tool: 'comfyui', where: `png:tEXt:${hostile}`, model: `m${hostile}`, seed: `1${hostile}`, prompt: `p${hostile}` } },
      { check: 'invisible_watermark', result: 'not_found', confidence: 0.5, note: `n${hostile}` },
    ],
    checks_run: ['c2pa', 'camera_reference', 'generator_metadata', 'invisible_watermark'],
    duration_ms: 1,
  };

  it('in a card, with colour off and on', () => {
    for (const color of [false, true]) {
      const text = formatResult(`photo${hostile}.png`, result, makeStyle(color));
      // With colour on, the only escapes are the style's own SGR sequences (ESC [ n m).
      const stripped = text.replace(/\u001b\[\d+m/g, '');
      expect(stripped).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
      expect(stripped).toContain('\\x1b]0;pwned\\x07\\x1b[2J');
    }
  });

  it('in an error line', () => {
    const text = formatError(`bad${hostile}`, { type: 'read_error', message: `could not read ${hostile}` }, makeStyle(false));
    expect(text).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/);
  });
});

describe('the error line of a file stopped at the time limit', () => {
  it('says the file could not be checked, not that it could not be read', () => {
    // The pool's own words for a worker stopped at its limit (src/engine/pool.ts timeout()).
    const text = formatError('slow.png', { type: 'timeout', message: 'slow.png: the checks did not finish within 120 s.' }, makeStyle(false));
    expect(text).toBe('slow.png\n  could not be checked: slow.png: the checks did not finish within 120 s. (timeout)\n\n');
  });
});
