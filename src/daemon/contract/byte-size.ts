// Sizes the operator gives the daemon's flags (`--max-upload-bytes-per-account 1GiB`,
// `--storage-floor 512MB`): a whole number of bytes, or a number with a unit. Units are binary
// whatever their spelling, as every size the /v1 API states is (1 MB = 1,048,576 bytes), so
// `1GB` and `1GiB` are the same size here.
import { MB } from './limits.js';

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: MB,
  mb: MB,
  mib: MB,
  g: 1024 * MB,
  gb: 1024 * MB,
  gib: 1024 * MB,
  t: 1024 * 1024 * MB,
  tb: 1024 * 1024 * MB,
  tib: 1024 * 1024 * MB,
};

/** `1073741824`, `1GiB`, `1.5 GB`, `500MB`: bytes (rounded down to whole ones), or undefined when the text is not a size. */
export function parseByteSize(text: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*([a-z]*)\s*$/i.exec(text);
  const name = m?.[2]!.toLowerCase() ?? '';
  const unit = m && Object.hasOwn(UNITS, name) ? UNITS[name] : undefined;
  if (!m || unit === undefined) return undefined;
  const bytes = Math.floor(Number(m[1]) * unit);
  return Number.isSafeInteger(bytes) ? bytes : undefined;
}

/** A size for messages: whole MB when it is one (`1024 MB`), else bytes (`1,500,000 bytes`). */
export function formatByteSize(bytes: number): string {
  return bytes % MB === 0 ? `${bytes / MB} MB` : `${bytes.toLocaleString('en-US')} bytes`;
}
