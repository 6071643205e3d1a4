// Counters and histograms whose cost on a request's path is one Map lookup and an addition.
// prom-client's own inc() and observe() check every label name, hash the label object and walk a
// hash map on each call: about 4 µs each on this machine, some ten calls per detect (store
// operations included), which `npm run bench:daemon` measured as most of the metrics' cost per
// request. Here the caller names a series by a key it builds from values it has already bounded
// (metrics.ts) and gets a cell back; the labels object is made once, when the series first
// appears. prom-client stays the registry and writes the exposition: these classes are its
// Counter and Histogram with their values read from the cells at scrape time (get()).
import { Counter, Histogram, type CounterConfiguration, type HistogramConfiguration } from 'prom-client';

type Labels<L extends string> = Record<L, string>;

/** The family as the registry reads it on a scrape (prom-client's MetricObjectWithValues). */
function family(configuration: { name: string; help: string; aggregator?: string }, type: 'counter' | 'histogram', values: unknown[]) {
  // prom-client's typings name `type` by a numeric enum its code never uses: the registry
  // writes the string it finds (`# TYPE name counter`), as its own classes set it.
  return { name: configuration.name, help: configuration.help, type: type as never, aggregator: (configuration.aggregator ?? 'sum') as never, collect: undefined as never, values: values as never[] };
}

/** One series of a counter. */
export interface CounterCell {
  value: number;
}

/** One series of a histogram: counts per bucket (not cumulative; the last is +Inf), sum, count. */
export class HistogramCell {
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  observe(value: number): void {
    // NaN and infinities are not durations: prom-client throws on them; a count is not worth an error.
    if (!Number.isFinite(value)) return;
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && value > bounds[i]!) i++;
    this.counts[i]! += 1;
    this.sum += value;
    this.count += 1;
  }
}

/** A Counter whose series live in cells (cell(key, labels).value += n). */
export class CounterCells<L extends string> extends Counter<L> {
  private readonly cells = new Map<string, { labels: Labels<L>; cell: CounterCell }>();

  constructor(private readonly configuration: CounterConfiguration<L>) {
    super(configuration);
  }

  /** The series `key` stands for; `labels()` is called only the first time a key is seen. */
  cell(key: string, labels: () => Labels<L>): CounterCell {
    let entry = this.cells.get(key);
    if (!entry) {
      entry = { labels: labels(), cell: { value: 0 } };
      this.cells.set(key, entry);
    }
    return entry.cell;
  }

  override async get() {
    // A `collect` of the configuration runs first, as in prom-client's own get(): a counter whose
    // total something else keeps sets its cell there.
    await this.configuration.collect?.call(this);
    return family(
      this.configuration,
      'counter',
      [...this.cells.values()].map(({ labels, cell }) => ({ labels, value: cell.value })),
    );
  }

  // prom-client's constructor calls reset() before this class's fields exist.
  override reset(): void {
    this.cells?.clear();
  }
}

/** A Histogram whose series live in cells (cell(key, labels).observe(seconds)). */
export class HistogramCells<L extends string> extends Histogram<L> {
  private readonly cells = new Map<string, { labels: Labels<L>; cell: HistogramCell }>();
  private readonly bounds: readonly number[];

  constructor(private readonly configuration: HistogramConfiguration<L> & { buckets: number[] }) {
    super(configuration);
    this.bounds = [...configuration.buckets].sort((a, b) => a - b);
  }

  cell(key: string, labels: () => Labels<L>): HistogramCell {
    let entry = this.cells.get(key);
    if (!entry) {
      entry = { labels: labels(), cell: new HistogramCell(this.bounds) };
      this.cells.set(key, entry);
    }
    return entry.cell;
  }

  override async get() {
    const name = this.configuration.name;
    const values: { labels: Record<string, string | number>; value: number; metricName: string }[] = [];
    for (const { labels, cell } of this.cells.values()) {
      // Buckets are cumulative in the exposition, as prom-client writes them.
      let cumulative = 0;
      this.bounds.forEach((bound, i) => {
        cumulative += cell.counts[i]!;
        values.push({ labels: { ...labels, le: bound }, value: cumulative, metricName: `${name}_bucket` });
      });
      values.push({ labels: { ...labels, le: '+Inf' }, value: cell.count, metricName: `${name}_bucket` });
      values.push({ labels, value: cell.sum, metricName: `${name}_sum` });
      values.push({ labels, value: cell.count, metricName: `${name}_count` });
    }
    return family(this.configuration, 'histogram', values);
  }

  // prom-client's registry reads a histogram through getForPromString() when it has one (its
  // Histogram does, untyped): without this, the scrape would show the base class's empty state.
  async getForPromString() {
    return this.get();
  }

  // prom-client's constructor calls reset() before this class's fields exist.
  override reset(): void {
    this.cells?.clear();
  }
}
