// A missing, empty or non-PEM trust anchor file: a usage error (exit 2) in the CLI. Its own module
// so that the library's entry can export the class without loading node:crypto (pem.ts).
export class TrustAnchorError extends Error {
  override name = 'TrustAnchorError';
}
