// A URL (or a connection string) as it may be shown or saved: with every secret in it as ***.
// One function for every place a store or SMTP URL reaches a message, a log line or a file
// (the store's `location`, store.json, the start's configuration line, error messages), and for
// an https:// input's name in results (https-source.ts), so no place masks the password of
// user:password@ and forgets `?password=`. In the engine room, the lowest both the daemon and
// the inputs reach.
//
// Secrets, in every form PostgreSQL (libpq, node-postgres) and SMTP URLs take them:
// - the userinfo password: postgres://user:SECRET@host/db
// - query parameters that carry one: ?password=, ?sslpassword= (the client key's passphrase),
//   and any parameter named like a secret (pass, passphrase, secret, token, key, credential)
// - the same names in a key=value connection string (`host=h password=SECRET`), quoted or not,
//   which is refused as a --store value but must not be echoed in the refusal either.

/**
 * A parameter name that holds a secret: password, sslpassword, passphrase, api_key, token... and
 * the signatures of signed URLs (S3's X-Amz-Signature and X-Amz-Credential, CloudFront's
 * Signature, Azure's sig), which grant access until they expire.
 */
const SECRET_NAME = /pass|secret|token|credential|signature|^(sig|auth)$|^(api_?|access_?|auth_?)?key$/i;

const MASK = '***';

export interface MaskOptions {
  /**
   * The user name too (`https://***@host/`): in a URL of a web server it is often a token itself
   * (`https://TOKEN@host/`), where a database's user name is only a name.
   */
  user?: boolean;
}

/** `value` with every secret in it as ***; text that holds none is returned unchanged. */
export function maskUrlSecrets(value: string, options: MaskOptions = {}): string {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(value)) {
    const masked = maskParsed(value, options);
    if (masked !== undefined) return masked;
  }
  return maskText(value);
}

function maskParsed(value: string, options: MaskOptions): string | undefined {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return undefined;
  }
  let changed = false;
  if (options.user && url.username) {
    url.username = MASK;
    changed = true;
  }
  if (url.password) {
    url.password = MASK;
    changed = true;
  }
  for (const name of new Set(url.searchParams.keys())) {
    if (SECRET_NAME.test(name)) {
      url.searchParams.set(name, MASK);
      changed = true;
    }
  }
  // Unchanged text stays as written (URL serialisation would re-encode it).
  return changed ? url.toString() : value;
}

/** For text no URL parser reads: the same secrets found by pattern. */
function maskText(value: string): string {
  return (
    value
      // scheme://user:SECRET@ (the password ends at the last @ before the host)
      .replace(/([a-z][a-z0-9+.-]*:\/\/[^\s:/@]*):[^\s/]*@/gi, `$1:${MASK}@`)
      // name=SECRET in a query string or a key=value string: 'quoted', or up to & or white space
      .replace(/(^|[?&;\s])([A-Za-z_][\w.-]*)(\s*=\s*)('(?:[^'\\]|\\.)*'|[^&\s;]*)/g, (all, lead: string, name: string, eq: string) =>
        SECRET_NAME.test(name) ? `${lead}${name}${eq}${MASK}` : all,
      )
  );
}

/**
 * An input as the user gave it (a path, an `s3://` or `https://` URL), as a report or a message
 * may show it: a URL with its user name, password and secret-named parameters as ***, as its
 * results show it (https-source.ts); anything else, a path above all, exactly as given (a file
 * may be called `token=1.jpg`).
 */
export function shownInput(input: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(input) ? maskUrlSecrets(input, { user: true }) : input;
}
