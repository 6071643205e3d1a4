// The admin token's check, shared by the admin endpoint (X-Provenance-Admin-Token) and GET
// /metrics (Authorization: Bearer): the SHA-256 of what was sent against the one the daemon
// keeps, compared with timingSafeEqual on digests of equal length, so neither the token nor how
// much of it matched shows in the time an answer takes.
import { timingSafeEqual } from 'node:crypto';
import { sha256Hex } from '../accounts/key-format.js';

export function adminTokenMatcher(tokenSha256: string): (given: string) => boolean {
  const expected = Buffer.from(tokenSha256, 'hex');
  return (given) => timingSafeEqual(Buffer.from(sha256Hex(given), 'hex'), expected);
}
