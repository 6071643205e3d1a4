// What the page routes (sign-in, dashboard) share, apart from the plugin that registers them,
// so that neither imports the plugin back.
import type { Services } from '../context.js';
import type { Mailer } from '../../web/mailer.js';
import type { Sessions } from '../../web/sessions.js';
import type { SigninLimits } from '../../web/signin-limits.js';
import type { SigninLinks } from '../../web/signin-links.js';

/** What the page routes share. */
export interface Web {
  services: Services;
  sessions: Sessions;
  links: SigninLinks;
  limits: SigninLimits;
  mailer: Mailer;
  publicUrl?: string;
  /** Every cookie of the pages is Secure: --public-url is https (whatever a proxy forwards). */
  secureCookies: boolean;
}

/** Route options that keep a page out of the OpenAPI document: pages are not part of /v1. */
export const HIDDEN = { schema: { hide: true } } as const;
