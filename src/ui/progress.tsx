// Live progress of a scan on stderr (ink), then a summary table. Loaded only when stderr is a
// terminal, not in CI, and without --quiet; everything else sees plain text or nothing.
import { PassThrough } from 'node:stream';
import { Box, render, Text, type Instance } from 'ink';
import type { ScanStats } from './scan-stats.js';

const CHECKS = ['c2pa', 'camera_reference'];

function duration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return '…';
  if (seconds < 60) return `${Math.ceil(seconds)} s`;
  const m = Math.floor(seconds / 60);
  return `${m} min ${Math.round(seconds - m * 60)} s`;
}

function Live({ stats, color }: { stats: ScanStats; color: boolean }) {
  const elapsed = (Date.now() - stats.startedAt) / 1000;
  const rate = elapsed > 0 ? stats.done / elapsed : 0;
  const total = stats.walking ? `${stats.discovered}+` : String(stats.discovered);
  const eta = stats.walking || rate === 0 ? '…' : duration((stats.discovered - stats.done) / rate);
  const width = 24;
  const filled = stats.walking || stats.discovered === 0 ? 0 : Math.round((stats.done / stats.discovered) * width);
  return (
    <Box flexDirection="column">
      <Text>
        <Text color={color ? 'cyan' : undefined}>{'█'.repeat(filled)}</Text>
        {'░'.repeat(width - filled)} {stats.done}/{total} files · {rate.toFixed(rate < 10 ? 1 : 0)} files/s · ETA {eta}
      </Text>
      <Text dimColor={color}>
        found: {CHECKS.map((c) => `${c} ${stats.found(c)}`).join(' · ')}
        {stats.unreadable ? ` · unreadable ${stats.unreadable}` : ''}
      </Text>
    </Box>
  );
}

function SummaryTable({ stats, color }: { stats: ScanStats; color: boolean }) {
  const rows = Object.entries(stats.checks);
  const pad = (s: string | number, n: number) => String(s).padStart(n);
  const elapsed = (Date.now() - stats.startedAt) / 1000;
  return (
    <Box flexDirection="column" marginTop={1}>
      <Text bold={color}>
        {stats.checked} checked · {stats.unreadable} unreadable · {elapsed.toFixed(1)} s · {(stats.done / Math.max(elapsed, 0.001)).toFixed(0)} files/s
      </Text>
      <Text bold={color}>{'check'.padEnd(18)}{pad('found', 8)}{pad('not found', 11)}{pad('unavailable', 13)}</Text>
      {rows.map(([check, c]) => (
        <Text key={check}>
          {check.padEnd(18)}
          <Text color={color && c.found ? 'green' : undefined}>{pad(c.found, 8)}</Text>
          {pad(c.not_found, 11)}
          {pad(c.unavailable, 13)}
        </Text>
      ))}
    </Box>
  );
}

export interface ProgressView {
  /** Before writing to a stream that shares the terminal: removes the frame (once). */
  clear(): void;
  /** Redraws, at most ten times a second; always right after a clear(). */
  update(): void;
  finish(): void;
  abort(): void;
}

export function startProgress(stats: ScanStats, stderr: NodeJS.WriteStream, color: boolean): ProgressView {
  const instance: Instance = render(<Live stats={stats} color={color} />, {
    stdout: stderr,
    // The display reads no keys. An inert stdin keeps ink from holding the terminal's input
    // open, which would keep the process alive after the scan (and after Ctrl-C).
    stdin: new PassThrough() as unknown as NodeJS.ReadStream,
    patchConsole: false,
    exitOnCtrlC: false,
  });
  let last = 0;
  // Each clear() erases the lines of the last frame; a second clear() before a redraw would
  // erase lines above the frame (the user's own), so clears and redraws must alternate.
  let cleared = false;
  return {
    clear() {
      if (cleared) return;
      instance.clear();
      cleared = true;
    },
    update() {
      const now = Date.now();
      if (!cleared && now - last < 100) return; // ten frames a second is plenty, and cheap
      last = now;
      cleared = false;
      instance.rerender(<Live stats={stats} color={color} />);
    },
    finish() {
      instance.rerender(<SummaryTable stats={stats} color={color} />);
      instance.unmount();
    },
    abort() {
      instance.clear();
      instance.unmount();
    },
  };
}
