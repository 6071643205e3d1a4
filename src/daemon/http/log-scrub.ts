// What never reaches the daemon's log, whatever an error message says. Request lines are built
// from named fields only (request-log.ts); the text that can carry a secret is what a library
// puts in an error: nodemailer names the refused recipient (`<me@example.com>`), PostgreSQL's
// `detail` repeats a row's values, a URL in a message may hold a password. Errors logged as
// `err` are serialized through scrubError, and every line passes scrubLine on its way out.

/** prv_ and the key's 38 characters (or any run of them: a key cut short or with junk added). */
const API_KEY = /prv_[A-Za-z0-9]{8,}/g;
/**
 * 32 random bytes in base64url: sign-in link tokens, session cookies, CSRF tokens, the admin
 * token. Exactly 43 characters between non-token characters: request ids (`req_` + 20) and
 * SHA-256 hex (64) are left as they are.
 */
const TOKEN_43 = /(?<![A-Za-z0-9_-])[A-Za-z0-9_-]{43}(?![A-Za-z0-9_-])/g;
/** A URL's user:password@ (SMTP and database URLs). */
const URL_PASSWORD = /([a-z][a-z0-9+.-]*:\/\/[^\s:/@"]*):[^\s@/"]*@/gi;
/** A credential in a query string, whatever its length (a store URL's ?password=, ?sslpassword=). */
const QUERY_SECRET = /([?&](?:token|key|api_key|access_token|session|csrf|password|sslpassword|passphrase|secret)=)[^&\s"#;]*/gi;
/** Anything@anything: the addresses of people who sign in (in a mail server's refusal, say). */
const EMAIL = /[^\s@<>()[\]"',;:\\*]+@[^\s@<>()[\]"',;:\\]+/g;

/** Secrets and e-mail addresses out of a text that came from outside the daemon's own words. */
export function scrubText(text: string): string {
  return scrubSecrets(text).replace(EMAIL, '[e-mail]');
}

/** A run of `length` characters of the 43-character tokens' alphabet ([A-Za-z0-9_-]). */
function hasTokenRun(text: string, length: number): boolean {
  let run = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    const tokenChar = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 45;
    if (!tokenChar) run = 0;
    else if (++run >= length) return true;
  }
  return false;
}

/**
 * Whether any of the four patterns below can match: each needs `prv_`, `://`, `=` or a run of
 * 43 token characters. A request line has none of them, and this test costs a fifth of running
 * the four replacements over it (10 µs a line on this machine; `npm run bench:daemon` counts
 * the log's cost per request).
 */
export function mayHoldSecret(text: string): boolean {
  return text.includes('prv_') || text.includes('://') || text.includes('=') || hasTokenRun(text, 43);
}

/** What each pattern becomes, in the order they run (a URL's password before a bare token). */
export const SECRET_REPLACEMENTS: readonly (readonly [RegExp, string])[] = [
  [URL_PASSWORD, '$1:***@'],
  [QUERY_SECRET, '$1[redacted]'],
  [API_KEY, 'prv_[redacted]'],
  [TOKEN_43, '[redacted]'],
];

/** Keys, tokens, URL passwords and query credentials out of a text (e-mail addresses kept). */
export function scrubSecrets(text: string): string {
  if (!mayHoldSecret(text)) return text;
  let out = text;
  for (const [pattern, replacement] of SECRET_REPLACEMENTS) out = out.replace(pattern, replacement);
  return out;
}

/** A copy of a serialized error (or any value) with every string scrubbed, depth-bounded. */
export function scrubValue(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return scrubText(value);
  if (value === null || typeof value !== 'object' || depth > 6) return value;
  if (Array.isArray(value)) return value.map((item) => scrubValue(item, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) out[key] = scrubValue(item, depth + 1);
  return out;
}

/**
 * The last line of defence on a whole JSON line: keys, tokens and passwords cannot form JSON
 * syntax (no quote, backslash or brace in them), so masking them keeps the line valid JSON.
 * E-mail addresses are left to scrubError and the request line's own fields: the configuration
 * line names the operator's --mail-from, which is no secret.
 */
export function scrubLine(line: string): string {
  return scrubSecrets(line);
}

/**
 * The logger's `err` serializer: type, message, stack, code and the error's own fields (a
 * PostgreSQL error's `detail`, say) and its cause, every string scrubbed with scrubText.
 */
export function serializeError(err: unknown, depth = 0): unknown {
  const looksLikeError = err instanceof Error || (typeof err === 'object' && err !== null && typeof (err as { message?: unknown }).message === 'string');
  if (!looksLikeError) return scrubValue(err);
  const e = err as Error & Record<string, unknown>;
  const out: Record<string, unknown> = { type: err instanceof Error ? e.constructor.name : 'Object', message: e.message, stack: e.stack };
  for (const [key, value] of Object.entries(e)) if (!(key in out) && key !== 'cause') out[key] = value;
  if (e.cause !== undefined) out.cause = depth < 3 ? serializeError(e.cause, depth + 1) : '[cause]';
  return scrubValue(out);
}
