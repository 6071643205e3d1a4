// `provenance cache clear|path`: the cache of remote results (client/cache.ts); `provenance cache
// scan clear|stats`: the scan cache of `check --incremental`.
import { clearCache } from '../client/cache.js';
import { cacheDir, scanCacheDir } from '../config/paths.js';
import { EXIT, type CommandIO } from './io.js';

export async function runCacheClear(_options: Record<string, never>, io: CommandIO): Promise<number> {
  const dir = cacheDir(io.env);
  const n = await clearCache(dir);
  io.stdout.write(`Removed ${n} cached result${n === 1 ? '' : 's'} from ${dir}.\n`);
  return EXIT.ok;
}

export async function runCachePath(_options: Record<string, never>, io: CommandIO): Promise<number> {
  io.stdout.write(`${cacheDir(io.env)}\n`);
  return EXIT.ok;
}

/** `1.2 GB`: sizes as the --cache-max flag takes them (decimal units). */
function formatBytes(n: number): string {
  if (n < 1e3) return `${n} B`;
  const [unit, size] = n < 1e6 ? ['kB', 1e3] : n < 1e9 ? ['MB', 1e6] : ['GB', 1e9];
  return `${(n / size).toFixed(1)} ${unit}`;
}

// `provenance cache scan clear|stats`: the scan cache of `check --incremental`
// (engine/scan-cache.ts, loaded lazily like the rest of this command).
export async function runCacheScanClear(_options: Record<string, never>, io: CommandIO): Promise<number> {
  const { clearScanCache } = await import('../engine/scan-cache.js');
  const dir = scanCacheDir(io.env);
  const { entries, aside } = await clearScanCache(dir);
  const extra = aside ? ` and ${aside} damaged cache${aside === 1 ? '' : 's'} moved aside earlier` : '';
  io.stdout.write(`Removed the scan cache (${entries} entr${entries === 1 ? 'y' : 'ies'}) from ${dir}${extra}.\n`);
  return EXIT.ok;
}

export async function runCacheScanStats(options: { json: boolean }, io: CommandIO): Promise<number> {
  const { scanCacheStats, DEFAULT_MAX_BYTES } = await import('../engine/scan-cache.js');
  const dir = scanCacheDir(io.env);
  let stats: Awaited<ReturnType<typeof scanCacheStats>>;
  try {
    stats = await scanCacheStats(dir);
  } catch (err) {
    io.stderr.write(`provenance: ${(err as Error).message}\n`);
    return EXIT.unreadable;
  }
  if (options.json) {
    io.stdout.write(`${JSON.stringify({ ...stats, default_max_bytes: DEFAULT_MAX_BYTES })}\n`);
    return EXIT.ok;
  }
  const lines = [
    `folder         ${stats.dir}${stats.exists ? '' : ' (no scan cache yet: `check --incremental` makes it)'}`,
    `entries        ${stats.entries.toLocaleString('en-US')}`,
    `data           ${formatBytes(stats.data_bytes)} of the ${formatBytes(DEFAULT_MAX_BYTES)} bound (default; check --cache-max SIZE sets another)`,
    `file on disk   ${formatBytes(stats.file_bytes)} (freed pages are reused; the file does not shrink)`,
    ...(stats.oldest_use ? [`used           ${stats.oldest_use} (longest ago) to ${stats.newest_use} (latest)`] : []),
  ];
  io.stdout.write(`${lines.join('\n')}\n`);
  return EXIT.ok;
}
