import { randomBytes } from 'node:crypto';

/** `chk_` + 24 URL-safe random characters (CONTRACT "Detection result"). */
export function newCheckId(): string {
  return `chk_${randomBytes(18).toString('base64url')}`;
}
