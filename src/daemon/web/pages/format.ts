// How the pages and the sign-in mail write instants: in UTC and saying so, the same on every
// machine whatever its locale or time zone.
const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec'];

/** "15 Nov 2026, 12:00 UTC". */
export function formatUtc(at: Date | string): string {
  return `${formatShort(at)} UTC`;
}

/** "15 Nov 2026". */
export function formatDay(at: Date | string): string {
  const d = typeof at === 'string' ? new Date(at) : at;
  return `${d.getUTCDate()} ${MONTHS[d.getUTCMonth()]} ${d.getUTCFullYear()}`;
}

/** "12:00" (UTC). */
export function formatTime(at: Date | string): string {
  const d = typeof at === 'string' ? new Date(at) : at;
  return `${String(d.getUTCHours()).padStart(2, '0')}:${String(d.getUTCMinutes()).padStart(2, '0')}`;
}

/** "15 Nov 2026, 12:00", where the column says UTC. */
export const formatShort = (at: Date | string) => `${formatDay(at)}, ${formatTime(at)}`;
