// The latest instant a state records: the test clock may not go back before it.
import type { StoreSnapshot } from '../store/store.js';

export function latestEventMs(snapshot: StoreSnapshot, extra: Array<string | null | undefined> = []): number {
  const times: Array<string | null | undefined> = [...extra];
  for (const a of snapshot.accounts) times.push(a.created_at);
  for (const k of snapshot.keys) times.push(k.created_at, k.last_used_at, k.revoked_at);
  for (const u of snapshot.uploads) times.push(u.created_at);
  for (const s of snapshot.sessions) times.push(s.created_at);
  for (const t of snapshot.signin_tokens) times.push(t.created_at, t.used_at);
  // A counted call in a month means the clock was in that month.
  for (const u of snapshot.usage) if (u.calls > 0) times.push(`${u.period}-01T00:00:00Z`);
  let latest = -Infinity;
  for (const t of times) {
    if (!t) continue;
    const ms = Date.parse(t);
    if (ms > latest) latest = ms;
  }
  return latest;
}
