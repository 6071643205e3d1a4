// One-time sign-in links (CONTRACT "Sign-in links"): 32 random bytes in the link, only their
// SHA-256 in the store, single use, 15 minutes. A used or expired record is kept for a day so
// the page can say which it was, then swept.
import { randomBytes } from 'node:crypto';
import { sha256Hex } from './key-format.js';
import type { Store, StoredSigninToken } from './store.js';
import type { Clock } from './time.js';

export const SIGNIN_LINK_TTL_MS = 15 * 60 * 1000;
const KEEP_AFTER_EXPIRY_MS = 24 * 60 * 60 * 1000;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export type LinkOutcome =
  | { ok: true; email: string; next: string }
  | { ok: false; problem: 'unknown' }
  | { ok: false; problem: 'used' | 'expired'; email: string };

export class SigninLinks {
  constructor(
    private readonly store: Store,
    private readonly now: Clock,
    readonly ttlMs = SIGNIN_LINK_TTL_MS,
  ) {}

  /** A new token for an (already normalised) address; the caller commits the store. */
  issue(email: string, next: string): { token: string; expiresAt: Date } {
    const token = randomBytes(32).toString('base64url');
    const at = this.now();
    const expiresAt = new Date(at.getTime() + this.ttlMs);
    const record: StoredSigninToken = {
      sha256: sha256Hex(token),
      email,
      next,
      created_at: at.toISOString(),
      expires_at: expiresAt.toISOString(),
      used_at: null,
    };
    this.store.data.signin_tokens[record.sha256] = record;
    return { token, expiresAt };
  }

  /**
   * Uses a token up. Synchronous check-and-set on the in-memory store, so of two requests
   * racing with one link exactly one signs in. The caller commits the store.
   */
  consume(token: unknown): LinkOutcome {
    if (typeof token !== 'string' || !TOKEN.test(token)) return { ok: false, problem: 'unknown' };
    const record = this.store.data.signin_tokens[sha256Hex(token)];
    if (!record) return { ok: false, problem: 'unknown' };
    if (record.used_at) return { ok: false, problem: 'used', email: record.email };
    const at = this.now();
    if (Date.parse(record.expires_at) <= at.getTime()) return { ok: false, problem: 'expired', email: record.email };
    record.used_at = at.toISOString();
    return { ok: true, email: record.email, next: record.next };
  }

  /** Drops records a day past their expiry; true when the store changed. */
  sweep(): boolean {
    const cutoff = this.now().getTime() - KEEP_AFTER_EXPIRY_MS;
    let changed = false;
    for (const [hash, record] of Object.entries(this.store.data.signin_tokens)) {
      if (Date.parse(record.expires_at) <= cutoff) {
        delete this.store.data.signin_tokens[hash];
        changed = true;
      }
    }
    return changed;
  }
}
