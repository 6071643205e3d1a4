// The state file a listening daemon writes into its data dir (daemon.json): where it listens and
// since when. `daemon status|stop` and the admin commands read it to find the daemon.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DATA_FILES } from './data-dir.js';

export interface DaemonState {
  pid: number;
  url: string;
  host: string;
  port: number;
  data_dir: string;
  started_at: string;
  /** The stop's timings (`--drain-delay`, `--shutdown-grace`), so `daemon stop` waits long enough. */
  drain_delay_ms?: number;
  shutdown_grace_ms?: number;
}

export function readState(dataDir: string): DaemonState | undefined {
  try {
    return JSON.parse(readFileSync(join(dataDir, DATA_FILES.state), 'utf8')) as DaemonState;
  } catch {
    return undefined;
  }
}

export function formatUrl(host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/** Where a client on this machine reaches a daemon listening on `host` (0.0.0.0 -> 127.0.0.1). */
export function localUrl(state: DaemonState): string {
  if (state.host === '0.0.0.0') return formatUrl('127.0.0.1', state.port);
  if (state.host === '::') return formatUrl('::1', state.port);
  return state.url;
}

/**
 * Remembers in the data dir that its daemon keeps its state in a database (or forgets it, for
 * the embedded store), so that an offline admin command on the data dir does not quietly write
 * an embedded store no daemon reads.
 */
export function writeStoreMarker(dataDir: string, location: string | undefined): void {
  const file = join(dataDir, DATA_FILES.storeMarker);
  if (location) writeFileSync(file, `${JSON.stringify({ store: location })}\n`, { mode: 0o600 });
  else rmSync(file, { force: true });
}

export function readStoreMarker(dataDir: string): string | undefined {
  try {
    return (JSON.parse(readFileSync(join(dataDir, DATA_FILES.storeMarker), 'utf8')) as { store?: string }).store;
  } catch {
    return undefined;
  }
}
