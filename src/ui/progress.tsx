// Live progress of a scan on stderr (ink). Loaded only when stderr is a terminal, not in CI, and
// without --quiet, once the scan has run for a moment (live-progress.ts); the table that ends
// the scan is plain text (scan-table.ts).
import { PassThrough } from 'node:stream';
import { Box, render, Text, type Instance } from 'ink';
import type { ScanStats } from './scan-stats.js';

/** The checks whose finds the live line counts (those the scan runs: not the AI checks with
 * --catalogue hosted). */
const CHECKS = ['c2pa', 'camera_reference', 'generator_metadata', 'invisible_watermark'];

// Every frame is printable ASCII: ink measures each line's width with string-width, which
// counts printable ASCII by length and sends anything else (a block character, a middle dot)
// through grapheme segmentation and Unicode property tests, and that was most of a frame's cost.
const UNKNOWN = '...';
/**
 * Five frames a second: counts and a 24-step bar need no more. A frame takes the main thread
 * 1 to 2 ms (ink's layout and output), which it takes from handing the workers their files.
 */
const FRAME_MS = 200;

function duration(seconds: number): string {
  if (!Number.isFinite(seconds) || seconds < 0) return UNKNOWN;
  if (seconds < 60) return `${Math.ceil(seconds)} s`;
  const m = Math.floor(seconds / 60);
  return `${m} min ${Math.round(seconds - m * 60)} s`;
}

function Live({ stats, color }: { stats: ScanStats; color: boolean }) {
  const elapsed = (Date.now() - stats.startedAt) / 1000;
  const rate = elapsed > 0 ? stats.done / elapsed : 0;
  const total = stats.walking ? `${stats.discovered}+` : String(stats.discovered);
  const eta = stats.walking || rate === 0 ? UNKNOWN : duration((stats.discovered - stats.done) / rate);
  const width = 24;
  const filled = stats.walking || stats.discovered === 0 ? 0 : Math.round((stats.done / stats.discovered) * width);
  return (
    <Box flexDirection="column">
      <Text>
        [<Text color={color ? 'cyan' : undefined}>{'#'.repeat(filled)}</Text>
        {'.'.repeat(width - filled)}] {stats.done}/{total} files | {rate.toFixed(rate < 10 ? 1 : 0)} files/s | ETA {eta}
      </Text>
      <Text dimColor={color}>
        found: {CHECKS.filter((c) => c === 'c2pa' || stats.checks[c]).map((c) => `${c} ${stats.found(c)}`).join(' | ')}
        {stats.unreadable ? ` | unreadable ${stats.unreadable}` : ''}
      </Text>
    </Box>
  );
}

export interface ProgressView {
  /** Before writing to a stream that shares the terminal: removes the frame (once). */
  clear(): void;
  /** Redraws, at most FRAME_MS apart; always right after a clear(). */
  update(): void;
  /** Removes the frame for good (the scan ended, or Ctrl-C). */
  end(): void;
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
      if (!cleared && now - last < FRAME_MS) return;
      last = now;
      cleared = false;
      instance.rerender(<Live stats={stats} color={color} />);
    },
    end() {
      // Unmounting draws the tree one last time, so a clear() alone would leave the last frame
      // on the screen: the tree becomes empty first, and its last drawing erases the frame.
      instance.rerender(null);
      instance.unmount();
    },
  };
}
