// A scan's source as it is shown and kept in the scan's row: a URL with every secret in it masked
// (`?token=***`, `https://***:***@host/`), as results and messages name it (engine/masked-url.ts),
// a path as `check` names it. The sources as given are needed only to list them; the workers read
// each input's own row.
import { displayPath, type FsPath } from '../engine/byte-paths.js';
import { maskUrlSecrets } from '../engine/masked-url.js';
import { SHOWN_SOURCES } from './fleet-schema.js';

export function shownSource(source: FsPath): string {
  const shown = displayPath(source);
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(shown) ? maskUrlSecrets(shown, { user: true }) : shown;
}

/** What a scan's row keeps of its sources: the first few, shown, and how many there were. */
export function sourceSummary(sources: readonly FsPath[]): { shown: string[]; count: number } {
  return { shown: sources.slice(0, SHOWN_SOURCES).map(shownSource), count: sources.length };
}
