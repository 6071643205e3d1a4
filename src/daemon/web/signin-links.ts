// One-time sign-in links (CONTRACT "Sign-in links"): 32 random bytes in the link, only their
// SHA-256 in the store, single use, 15 minutes. Opening the link (GET) only shows a page; its
// button (a POST with a CSRF token) uses the token up. A used or expired record is kept for a day so
// the page can say which it was, then swept.
import { randomBytes } from 'node:crypto';
import { sha256Hex } from '../accounts/key-format.js';
import type { Store, StoredSigninToken } from '../store/store.js';
import type { Clock } from '../contract/time.js';

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
  async issue(email: string, next: string): Promise<{ token: string; expiresAt: Date }> {
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
    await this.store.insertSigninToken(record);
    return { token, expiresAt };
  }

  /**
   * What a token is now, without using it up: the link opens a page that asks to sign in (a GET
   * must not sign in, or another site could sign a browser into the other site's own account).
   */
  async peek(token: unknown): Promise<LinkOutcome> {
    if (typeof token !== 'string' || !TOKEN.test(token)) return { ok: false, problem: 'unknown' };
    const record = await this.store.signinTokenByHash(sha256Hex(token));
    if (!record) return { ok: false, problem: 'unknown' };
    if (record.used_at) return { ok: false, problem: 'used', email: record.email };
    if (Date.parse(record.expires_at) <= this.now().getTime()) return { ok: false, problem: 'expired', email: record.email };
    return { ok: true, email: record.email, next: record.next };
  }

  /**
   * Uses a token up (the POST of the link's page). The store's check-and-set is atomic, so of two requests racing with one
   * link exactly one signs in. The caller commits the store.
   */
  async consume(token: unknown): Promise<LinkOutcome> {
    if (typeof token !== 'string' || !TOKEN.test(token)) return { ok: false, problem: 'unknown' };
    const use = await this.store.useSigninToken(sha256Hex(token), this.now());
    if (use.ok) return { ok: true, email: use.record.email, next: use.record.next };
    if (use.problem === 'unknown') return { ok: false, problem: 'unknown' };
    return { ok: false, problem: use.problem, email: use.record.email };
  }

  /** Drops records a day past their expiry; true when the store changed. */
  async sweep(): Promise<boolean> {
    return (await this.store.deleteSigninTokensExpiredBefore(this.now().getTime() - KEEP_AFTER_EXPIRY_MS)) > 0;
  }
}
