// The table that ends a scan in a terminal (on stderr): how many files, how fast, and each
// check's counts. Plain text, so a scan too short for the live display still gets it without
// loading ink. It starts on its own line; the caller puts an empty line above it.
import type { ScanStats } from './scan-stats.js';
import type { Style } from './style.js';

/** A count with its thousands grouped, "1,087", like every number in the table. */
const count = (n: number) => Math.round(n).toLocaleString('en-US');
const pad = (n: number, width: number) => count(n).padStart(width);
/** The longest check id (invisible_watermark) and two spaces. */
const CHECK_WIDTH = 21;

export function formatScanTable(stats: ScanStats, s: Style, now = Date.now()): string {
  const elapsed = Math.max(now - stats.startedAt, 0) / 1000;
  const rate = stats.done / Math.max(elapsed, 0.001);
  // "1,087 from cache" (as the issue that asked for it wrote it): every count grouped the same
  // way, so "1,088 checked" and "1,087 from cache" read alike on one line.
  const cached = stats.incremental ? `${count(stats.fromCache)} from cache · ` : '';
  const lines = [
    s.bold(
      `${count(stats.checked)} checked · ${count(stats.unreadable)} unreadable · ${cached}${elapsed.toFixed(1)} s · ${count(rate)} files/s`,
    ),
    s.bold(`${'check'.padEnd(CHECK_WIDTH)}${'found'.padStart(8)}${'not found'.padStart(11)}${'unavailable'.padStart(13)}`),
    ...Object.entries(stats.checks).map(
      ([check, c]) => `${check.padEnd(CHECK_WIDTH)}${c.found ? s.green(pad(c.found, 8)) : pad(c.found, 8)}${pad(c.not_found, 11)}${pad(c.unavailable, 13)}`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}
