// The table that ends a scan in a terminal (on stderr): how many files, how fast, and each
// check's counts. Plain text, so a scan too short for the live display still gets it without
// loading ink. It starts on its own line; the caller puts an empty line above it.
import type { ScanStats } from './scan-stats.js';
import type { Style } from './style.js';

const pad = (s: string | number, n: number) => String(s).padStart(n);

export function formatScanTable(stats: ScanStats, s: Style, now = Date.now()): string {
  const elapsed = Math.max(now - stats.startedAt, 0) / 1000;
  const rate = stats.done / Math.max(elapsed, 0.001);
  const lines = [
    s.bold(`${stats.checked} checked · ${stats.unreadable} unreadable · ${elapsed.toFixed(1)} s · ${rate.toFixed(0)} files/s`),
    s.bold(`${'check'.padEnd(18)}${pad('found', 8)}${pad('not found', 11)}${pad('unavailable', 13)}`),
    ...Object.entries(stats.checks).map(
      ([check, c]) => `${check.padEnd(18)}${c.found ? s.green(pad(c.found, 8)) : pad(c.found, 8)}${pad(c.not_found, 11)}${pad(c.unavailable, 13)}`,
    ),
  ];
  return `${lines.join('\n')}\n`;
}
