import { existsSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { packageDataDir, packageDataFile } from '../src/media/package-data.js';

describe('the package data folder', () => {
  it('is found from the source tree, with the C2PA lists and their source named', () => {
    expect(packageDataDir()).toMatch(/[\\/]data$/);
    for (const name of ['C2PA-TRUST-LIST.pem', 'C2PA-TSA-TRUST-LIST.pem', 'conforming-products-list.json', 'LICENSE-CC-BY-4.0.txt', 'README.md']) {
      expect(existsSync(packageDataFile('c2pa', name)), name).toBe(true);
    }
    const source = JSON.parse(readFileSync(packageDataFile('c2pa', 'source.json'), 'utf8')) as { repository: string; commit: string };
    expect(source.repository).toBe('c2pa-org/conformance-public');
    expect(source.commit).toMatch(/^[0-9a-f]{40}$/);
  });

  it('ships in the package (package.json files)', () => {
    const pkg = JSON.parse(readFileSync('package.json', 'utf8')) as { files: string[] };
    expect(pkg.files).toContain('data');
  });
});
