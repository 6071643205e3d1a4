// The path of a request target, whatever its form: origin-form (`/v1/detect?x=1`) or
// absolute-form (`http://127.0.0.1:8787/v1/detect`, RFC 9112 3.2.2, which a server must accept
// and which fastify routes by its path). Hooks that decide by path (the request log, test mode's
// header check, the not-found message) use this, never the raw target's prefix.

/** The target's path, without its query string. */
export function requestPath(target: string): string {
  if (!target.startsWith('/')) {
    try {
      return new URL(target).pathname;
    } catch {
      // Neither form (`*` of OPTIONS, or garbage the router refuses anyway): as it came.
    }
  }
  return target.split('?')[0]!;
}
