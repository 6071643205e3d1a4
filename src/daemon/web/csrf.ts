// CSRF tokens for the pages' forms (every form is a POST, and every POST checks its token).
// - Signed-in forms: the token is an HMAC of the session cookie's value, so it is bound to the
//   session, needs no storage, and survives a daemon restart like the session does. Another
//   site can neither read the HttpOnly cookie nor compute the token.
// - Forms before sign-in: double-submit. A random value in an HttpOnly cookie must come back
//   in the form's hidden field; another site can make the browser send the cookie but cannot
//   read it to put it in the form.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

export const CSRF_COOKIE = 'prv_csrf';
const TOKEN = /^[A-Za-z0-9_-]{43}$/;

export function newCsrfSecret(): string {
  return randomBytes(32).toString('base64url');
}

export const isCsrfSecret = (value: unknown): value is string => typeof value === 'string' && TOKEN.test(value);

export function sessionCsrfToken(sessionToken: string): string {
  return createHmac('sha256', sessionToken).update('provenance dashboard csrf v1').digest('base64url');
}

/**
 * Constant-time comparison of a submitted token with the expected one. Both must have the
 * tokens' format first (43 base64url characters, so 43 bytes each): a malformed field, such as
 * 43 non-ASCII characters (more than 43 bytes), is a plain mismatch, never a throw of
 * timingSafeEqual on buffers of different lengths.
 */
export function sameToken(given: unknown, expected: string | undefined): boolean {
  if (!isCsrfSecret(given) || !isCsrfSecret(expected)) return false;
  return timingSafeEqual(Buffer.from(given), Buffer.from(expected));
}
