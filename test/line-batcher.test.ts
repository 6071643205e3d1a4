// Scan output to a pipe or file goes out a few whole lines per write; a terminal gets each line.
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { LineBatcher } from '../src/commands/line-batcher.js';

function sink(isTTY = false) {
  const writes: string[] = [];
  const out = Object.assign(
    new Writable({
      write(chunk, _enc, done) {
        writes.push(String(chunk));
        done();
      },
    }),
    { isTTY },
  );
  return { out, writes };
}
const turn = () => new Promise((r) => setImmediate(r));

describe('LineBatcher', () => {
  it('groups the lines of one turn of the event loop into one write, in order', async () => {
    const { out, writes } = sink();
    const lines = new LineBatcher(out);
    lines.write('a\n');
    lines.write('b\n');
    lines.write('c\n');
    expect(writes).toEqual([]);
    await turn();
    expect(writes).toEqual(['a\nb\nc\n']);
    lines.write('d\n');
    lines.flush(); // before anything else goes to the same stream
    expect(writes).toEqual(['a\nb\nc\n', 'd\n']);
    await turn();
    expect(writes).toHaveLength(2); // nothing left to write twice
  });

  it('writes at once past 64 KiB, never splitting a line', () => {
    const { out, writes } = sink();
    const lines = new LineBatcher(out);
    const line = `${'x'.repeat(1023)}\n`;
    for (let i = 0; i < 70; i++) lines.write(line);
    expect(writes).toHaveLength(1);
    expect(writes[0]!.length).toBe(64 * 1024);
    lines.flush();
    expect(writes.join('')).toBe(line.repeat(70));
  });

  it('passes each line straight to a terminal', () => {
    const { out, writes } = sink(true);
    const lines = new LineBatcher(out);
    lines.write('a\n');
    lines.write('b\n');
    expect(writes).toEqual(['a\n', 'b\n']);
  });
});
