// docs/DAEMON.md's "Testing your API client offline" example is test/examples/offline-client.test.ts,
// which runs in this suite: this keeps the guide's copy identical to the file that runs.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { ROOT } from './helpers/corpus.js';

it('docs/DAEMON.md shows test/examples/offline-client.test.ts exactly', () => {
  const guide = readFileSync(join(ROOT, 'docs', 'DAEMON.md'), 'utf8');
  const section = guide.slice(guide.indexOf('## Testing your API client offline'));
  expect(section.length).toBeLessThan(guide.length);
  const block = /```ts\n([\s\S]*?)```/.exec(section)?.[1];
  expect(block).toBe(readFileSync(join(ROOT, 'test/examples/offline-client.test.ts'), 'utf8'));
});
