// The daemon's lean counters and histograms (src/daemon/http/metric-cells.ts) against prom-client's
// own Counter and Histogram as the oracle: the same observations, through the same registry
// writer, give the same samples (bucket bounds included: a value equal to a bound counts in it).
import fc from 'fast-check';
import { Counter, Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { CounterCells, HistogramCells } from '../../src/daemon/http/metric-cells.js';
import { parseExposition, type Sample } from '../helpers/prom-text.js';

const BUCKETS = [0.001, 0.01, 0.1, 1, 10];
const SOURCES = ['inline', 'multipart', 'url'] as const;

/** Samples in one order, labels as sorted text: the two writers may order labels differently. */
function samples(text: string): string[] {
  return parseExposition(text)
    .samples.map((s: Sample) => `${s.name}{${Object.keys(s.labels).sort().map((k) => `${k}=${s.labels[k]}`).join(',')}} ${s.value}`)
    .sort();
}

async function both(observations: { source: (typeof SOURCES)[number]; value: number }[]) {
  const oracle = new Registry();
  const lean = new Registry();
  const help = 'Seconds.';
  const theirs = new Histogram({ name: 'x_seconds', help, labelNames: ['source'], buckets: BUCKETS, registers: [oracle] });
  const ours = new HistogramCells({ name: 'x_seconds', help, labelNames: ['source'], buckets: BUCKETS, registers: [lean] });
  const theirCount = new Counter({ name: 'x_total', help, labelNames: ['source'], registers: [oracle] });
  const ourCount = new CounterCells({ name: 'x_total', help, labelNames: ['source'], registers: [lean] });
  for (const { source, value } of observations) {
    theirs.observe({ source }, value);
    ours.cell(source, () => ({ source })).observe(value);
    theirCount.inc({ source });
    ourCount.cell(source, () => ({ source })).value += 1;
  }
  return { oracle: await oracle.metrics(), lean: await lean.metrics() };
}

describe('metric cells', () => {
  it('write what prom-client writes for the same observations, bounds and +Inf included', async () => {
    const values = [0, 0.001, 0.0010001, 0.01, 0.5, 1, 10, 10.5, 1e6];
    const { oracle, lean } = await both(values.flatMap((value, i) => [{ source: SOURCES[i % 3]!, value }]));
    expect(samples(lean)).toEqual(samples(oracle));
    expect(lean).toContain('# TYPE x_seconds histogram');
    expect(lean).toContain('# TYPE x_total counter');
    // multipart had 0.001 (on the bound: counted in it), 0.5 and 10.5.
    expect(lean).toMatch(/^x_seconds_bucket\{source="multipart",le="0\.001"\} 1$/m);
    expect(lean).toMatch(/^x_seconds_bucket\{source="multipart",le="1"\} 2$/m);
  });

  it('agree with prom-client on any sequence of observations (property)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ source: fc.constantFrom(...SOURCES), value: fc.double({ min: 0, max: 100, noNaN: true }) }), { maxLength: 60 }),
        async (observations) => {
          const { oracle, lean } = await both(observations);
          // Sums may differ in the last bit only if the additions ran in another order; they do not.
          expect(samples(lean)).toEqual(samples(oracle));
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a series appears with its first count, its labels made once; NaN is not counted', async () => {
    const registry = new Registry();
    const histogram = new HistogramCells({ name: 'y_seconds', help: 'h', labelNames: ['source'], buckets: BUCKETS, registers: [registry] });
    expect(await registry.metrics()).not.toMatch(/^y_seconds_bucket/m);
    let made = 0;
    const labels = () => {
      made += 1;
      return { source: 'url' };
    };
    histogram.cell('url', labels).observe(0.5);
    histogram.cell('url', labels).observe(Number.NaN);
    histogram.cell('url', labels).observe(Number.POSITIVE_INFINITY);
    expect(made).toBe(1);
    const text = await registry.metrics();
    expect(text).toMatch(/^y_seconds_count\{source="url"\} 1$/m);
    expect(text).toMatch(/^y_seconds_sum\{source="url"\} 0\.5$/m);
    histogram.reset();
    expect(await registry.metrics()).not.toMatch(/^y_seconds_count/m);
  });
});
