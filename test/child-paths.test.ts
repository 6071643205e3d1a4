// The folder walk builds each entry's path with childPathsOf instead of path.join per entry; the
// paths (which are the `source` of every output line) must be exactly join's.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { childPathsOf } from '../src/engine/inputs.js';

describe('childPathsOf', () => {
  it('gives exactly path.join(folder, name) for every kind of folder spelling', () => {
    const folders = ['.', './', '..', '../x', 'a', 'a/', 'a//b', './a/./b/', 'a/../b', '/', '//', '/tmp', '/tmp/', '/tmp/../var', 'a b/c', 'émoji 📷', '.bench/scan', ''];
    const names = ['IMG_0001.jpg', '.hidden', 'a b.png', 'x\\y', '..a', 'é.jpg'];
    for (const folder of folders) {
      const child = childPathsOf(folder);
      for (const name of names) expect(child(name), `${JSON.stringify(folder)} + ${JSON.stringify(name)}`).toBe(join(folder, name));
    }
  });
});
