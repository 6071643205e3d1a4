// Dashboard sessions. The cookie carries 32 random bytes; the store keeps only their SHA-256
// with the account and an absolute expiry, so a copy of the store cannot be used to sign in.
// Flash messages (a notice, or a new key to show once) live in memory only and are taken by
// the next dashboard view: a new key never touches the disk, and a reload no longer shows it.
import { randomBytes } from 'node:crypto';
import type { NewKey } from '../contract/api-types.js';
import { sha256Hex } from '../accounts/key-format.js';
import type { Store, StoredSession } from '../store/store.js';
import type { Clock } from '../contract/time.js';

export const SESSION_COOKIE = 'prv_session';
export const SESSION_TTL_MS = 12 * 60 * 60 * 1000;
const TOKEN = /^[A-Za-z0-9_-]{43}$/;
/** A flash not shown within this time is dropped (the key it held is then simply lost); by the daemon's clock. */
const FLASH_TTL_MS = 10 * 60 * 1000;

/** A flash set FLASH_TTL_MS or longer ago (by the daemon's clock). */
function isStale(flash: { at: number }, nowMs: number): boolean {
  return flash.at <= nowMs - FLASH_TTL_MS;
}

export interface Flash {
  newKey?: NewKey;
  notice?: string;
  error?: string;
}

export class Sessions {
  private readonly flashes = new Map<string, Flash & { at: number }>();

  constructor(
    private readonly store: Store,
    private readonly now: Clock,
    readonly ttlMs = SESSION_TTL_MS,
  ) {}

  /** A new session for the account; the caller commits the store and sets the cookie. */
  async create(accountId: string): Promise<{ token: string; session: StoredSession }> {
    const token = randomBytes(32).toString('base64url');
    const at = this.now();
    const session: StoredSession = {
      sha256: sha256Hex(token),
      account: accountId,
      created_at: at.toISOString(),
      expires_at: new Date(at.getTime() + this.ttlMs).toISOString(),
    };
    await this.store.insertSession(session);
    return { token, session };
  }

  /** The live session of a cookie value, or undefined (malformed, unknown, expired). */
  async find(token: string | undefined): Promise<StoredSession | undefined> {
    if (!token || !TOKEN.test(token)) return undefined;
    const session = await this.store.sessionByHash(sha256Hex(token));
    if (!session || Date.parse(session.expires_at) <= this.now().getTime()) return undefined;
    return session;
  }

  /** Ends a session (sign-out); true when there was one. The caller commits the store. */
  async destroy(token: string | undefined): Promise<boolean> {
    if (!token || !TOKEN.test(token)) return false;
    const hash = sha256Hex(token);
    this.flashes.delete(hash);
    return this.store.deleteSession(hash);
  }

  /** Drops expired sessions and stale flashes; true when the store changed. */
  async sweep(): Promise<boolean> {
    const nowMs = this.now().getTime();
    const changed = (await this.store.deleteExpiredSessions(nowMs)) > 0;
    for (const [hash, flash] of this.flashes) if (isStale(flash, nowMs)) this.flashes.delete(hash);
    return changed;
  }

  /** Flashes held in memory now: sweep() dropping stale ones is what bounds them. */
  get heldFlashes(): number {
    return this.flashes.size;
  }

  setFlash(token: string, flash: Flash): void {
    this.flashes.set(sha256Hex(token), { ...flash, at: this.now().getTime() });
  }

  /** The session's flash, removed: it is shown once, and not at all once stale (sweep() may not have run yet). */
  takeFlash(token: string): Flash | undefined {
    const hash = sha256Hex(token);
    const flash = this.flashes.get(hash);
    this.flashes.delete(hash);
    return flash && !isStale(flash, this.now().getTime()) ? flash : undefined;
  }
}
