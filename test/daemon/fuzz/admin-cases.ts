// Requests to the admin endpoint (/admin/v1/*), with its token and without: accounts, plans,
// keys, the clock, seed, export, import, reset and the request log, with bodies of every wrong
// type. Accepted requests only ever touch accounts of their own (admin-N@example.test), never the
// API fuzz's accounts (their plans and usage are what the quota check reads) nor the signed-in
// ones. Two operations that would wipe the state when accepted are only sent so that they must
// be refused: `reset` (without the token, or with it and a body it cannot read) and `import`
// (documents that are never valid snapshots).
import fc from 'fast-check';
import { newKeyValue } from '../../../src/daemon/accounts/key-format.js';
import { ADMIN_TOKEN_HEADER } from '../../../src/daemon/admin/admin-token.js';
import { applyCoding, coding, framing, headerNoise, overlongSegment, targetJunk, type Case } from './cases.js';
import { encodeBody } from './wire.js';

export interface AdminFixtures {
  token: string;
  /** Key ids the run may revoke (an account of its own). */
  revocable: string[];
}

/** JSON values of every type, including ones that break `String(x)` (an object whose toString is not a function). */
const anyValue = fc.oneof(
  { weight: 3, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
  { weight: 1, arbitrary: fc.constantFrom<unknown>({ toString: 1 }, { valueOf: 'x', toString: null }, [], [[]], 1e308, -0, '', '\u0000', 'x'.repeat(3_000)) },
);
const email = fc.oneof({ weight: 3, arbitrary: fc.nat(9).map((n) => `admin-${n}@example.test`) }, { weight: 1, arbitrary: anyValue });
const plan = fc.oneof(fc.constantFrom('free', 'starter', 'growth', 'custom', 'FREE', 'enterprise'), anyValue);
const quota = fc.oneof(fc.constantFrom(0, 1, 1000, -1, 1.5, 2 ** 53, '100'), anyValue);
const fixtureKeys = Array.from({ length: 4 }, () => newKeyValue());

const accountBody = fc.record({ email, plan, quota }, { requiredKeys: [] });
const keyBody = fc.record({ email, name: fc.oneof(fc.string({ maxLength: 30 }), anyValue) }, { requiredKeys: [] });
const clockBody = fc.record({ action: fc.oneof(fc.constantFrom('set', 'advance', 'real'), anyValue), at: anyValue, by: fc.oneof(fc.constantFrom('1d', '1h30m', '-1d', '0s'), anyValue) }, { requiredKeys: [] });
const seedBody = fc.oneof(
  fc.record({
    accounts: fc.array(
      fc.record(
        { email, plan, quota, used: fc.oneof(fc.nat(100), anyValue), keys: fc.array(fc.record({ key: fc.oneof(fc.constantFrom(...fixtureKeys), anyValue), name: fc.oneof(fc.string({ maxLength: 20 }), anyValue) }, { requiredKeys: ['key'] }), { maxLength: 2 }) },
        { requiredKeys: ['email'] },
      ),
      { maxLength: 3 },
    ),
  }),
  anyValue,
);
/** Never a valid snapshot: a wrong format or version, or a broken record (an import would replace everything). */
const importBody = fc.oneof(
  fc.record({
    format: fc.constantFrom('provenance-daemon-state', 'other'),
    version: fc.constantFrom(0, 2, '1', null),
    accounts: fc.constantFrom([], [{}]),
    keys: fc.constant([]),
  }),
  fc.record({
    format: fc.constant('provenance-daemon-state'),
    version: fc.constant(1),
    accounts: fc.constant([{ id: 'acct_x', email: 'x@example.test', plan: 'free', created_at: 5 }]),
    keys: fc.constant([]),
    usage: fc.constant([]),
    uploads: fc.constant([]),
    sessions: fc.constant([]),
    signin_tokens: fc.constant([]),
  }),
  anyValue.filter((v) => typeof v !== 'object' || v === null || !('format' in v)),
);

const json = (v: unknown) => Buffer.from(JSON.stringify(v) ?? 'null');

/** Bodies the generic JSON parser must survive whatever the route. */
const hostileJson = fc.constantFrom(
  Buffer.from(`${'['.repeat(10_000)}${']'.repeat(10_000)}`),
  Buffer.from(`{"email":"admin-1@example.test","email":{"toString":1}}`),
  Buffer.concat([Buffer.from('{"email":"adm'), Buffer.from([0xff, 0xfe]), Buffer.from('@example.test"}')]),
  Buffer.from('{"email":'),
  Buffer.from(''),
  Buffer.from('{"__proto__":{"email":"admin-2@example.test"}}'),
  Buffer.from(JSON.stringify({ email: 'admin-3@example.test', name: 'x'.repeat(70 * 1024) })),
);

interface Route {
  method: string;
  path: string;
  /** Statuses with the token: every admin answer is 200/201 or a CONTRACT error. */
  statuses: number[];
  /** The route's own kind of body (hostile ones are mixed in below). */
  body?: Buffer;
  mutating: boolean;
}

export function adminCases(admin: AdminFixtures): fc.Arbitrary<Case> {
  const refusals = [400, 404, 413, 415];
  const post = (path: string, statuses: number[], body: fc.Arbitrary<unknown>) => body.map((b): Route => ({ method: 'POST', path, statuses, body: json(b), mutating: true }));
  const routes: fc.Arbitrary<Route> = fc.oneof(
    post('/admin/v1/accounts', [201, ...refusals], accountBody),
    fc.constant<Route>({ method: 'GET', path: '/admin/v1/accounts', statuses: [200], mutating: false }),
    post('/admin/v1/accounts/plan', [200, ...refusals], accountBody),
    post('/admin/v1/keys', [201, ...refusals], keyBody),
    fc.oneof(fc.nat(9).map((n) => `admin-${n}@example.test`), targetJunk).map((e): Route => ({ method: 'GET', path: `/admin/v1/keys?email=${encodeURIComponent(e)}`, statuses: [200, 400, 404], mutating: false })),
    fc.oneof(fc.constantFrom(...admin.revocable), fc.constant('key_nope'), targetJunk.filter((s) => s.length > 0 && !s.includes('/'))).map((id): Route => ({ method: 'POST', path: `/admin/v1/keys/${id}/revoke`, statuses: [200, ...refusals], mutating: true })),
    fc.constant<Route>({ method: 'GET', path: '/admin/v1/clock', statuses: [200], mutating: false }),
    post('/admin/v1/clock', refusals, clockBody),
    post('/admin/v1/seed', [200, ...refusals], seedBody),
    fc.constant<Route>({ method: 'GET', path: '/admin/v1/export', statuses: [200], mutating: false }),
    post('/admin/v1/import', refusals, importBody),
    fc.constantFrom('', '?after=0', '?after=-1', '?after=1.5', '?after=x', '?limit=0', '?limit=100000', '?limit=5&account=admin-1@example.test', '?after=1&after=2').map((q): Route => ({ method: 'GET', path: `/admin/v1/requests${q}`, statuses: [200, 400], mutating: false })),
  );
  const token = fc.oneof(
    { weight: 6, arbitrary: fc.constant({ headers: [[ADMIN_TOKEN_HEADER, admin.token]] as [string, string][], admitted: true as boolean | undefined }) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        { headers: [] as [string, string][], admitted: false as boolean | undefined },
        { headers: [[ADMIN_TOKEN_HEADER, '']] as [string, string][], admitted: false as boolean | undefined },
        { headers: [[ADMIN_TOKEN_HEADER, `${admin.token}x`]] as [string, string][], admitted: false as boolean | undefined },
        { headers: [[ADMIN_TOKEN_HEADER, admin.token.slice(1)]] as [string, string][], admitted: false as boolean | undefined },
        // Two token headers: Node joins them ("a, b"), which is no token.
        { headers: [[ADMIN_TOKEN_HEADER, admin.token], [ADMIN_TOKEN_HEADER, admin.token]] as [string, string][], admitted: false as boolean | undefined },
        { headers: [['Authorization', `Bearer ${admin.token}`]] as [string, string][], admitted: false as boolean | undefined },
      ),
    },
  );
  const contentType = fc.oneof(
    { weight: 8, arbitrary: fc.constant<string | undefined>('application/json') },
    { weight: 1, arbitrary: fc.constantFrom<string | undefined>(undefined, 'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=FUZZ', 'application/json; charset=latin1') },
  );
  /** Mostly the route's own body; else one that no route expects, or none. */
  const body = fc.oneof({ weight: 6, arbitrary: fc.constant<Buffer | undefined>(undefined) }, { weight: 1, arbitrary: hostileJson }, { weight: 1, arbitrary: anyValue.map(json) }, { weight: 1, arbitrary: fc.constant(Buffer.alloc(0)) });

  const ordinary = fc
    .record({ route: routes, token, contentType, body, coding, noise: headerNoise, framing })
    .map(({ route: r, token: t, contentType: ct, body: b, coding: c, noise, framing: f }): Case => {
      const raw = r.method === 'GET' ? Buffer.alloc(0) : (b ?? r.body ?? Buffer.alloc(0));
      return build(r, t, ct, raw, c, noise, f);
    });
  // Sent to be refused: with the token, only as a body the daemon does not decode (415).
  const reset = fc
    .record({ token, noise: headerNoise, body: fc.constantFrom('{}', '{"keep_accounts":true}', '{"keep_accounts":false}') })
    .map(({ token: t, noise, body: b }): Case => {
      const route: Route = { method: 'POST', path: '/admin/v1/reset', statuses: [415], mutating: true };
      if (t.admitted) return build(route, t, 'application/json', Buffer.from(b), { coding: 'gzip', lying: false }, { headers: noise.oversized ? noise.headers : [], oversized: noise.oversized }, 'length');
      return build(route, t, 'application/json', Buffer.from(b), { coding: undefined, lying: false }, noise, 'length');
    });
  const unknown = fc.constantFrom('GET /admin/v1/nope', 'DELETE /admin/v1/accounts', 'PUT /admin/v1/keys', 'GET /admin/v2/accounts').chain((which) =>
    token.map((t): Case => {
      const [method, path] = which.split(' ') as [string, string];
      return { ...build({ method, path, statuses: [404], mutating: false }, t, undefined, Buffer.alloc(0), { coding: undefined, lying: false }, { headers: [], oversized: false }, method === 'GET' ? 'none' : 'length'), unknown: true };
    }),
  );
  return fc.oneof({ weight: 12, arbitrary: ordinary }, { weight: 1, arbitrary: reset }, { weight: 1, arbitrary: unknown });
}

function build(
  r: Route,
  t: { headers: [string, string][]; admitted: boolean | undefined },
  ct: string | undefined,
  raw: Buffer,
  c: { coding: Parameters<typeof encodeBody>[1]; lying: boolean },
  noise: { headers: [string, string][]; oversized: boolean },
  f: Case['framing'],
): Case {
  const coded = applyCoding(raw, c);
  const headers: [string, string][] = [...noise.headers, ...t.headers, ...coded.header];
  if (ct !== undefined && r.method !== 'GET') headers.push(['Content-Type', ct]);
  return {
    family: 'admin',
    route: `${r.method} ${r.path.split('?')[0]!.replace(/^\/admin\/v1\/keys\/[^/]*\/revoke$/, '/admin/v1/keys/:id/revoke')}`,
    method: r.method,
    path: r.path,
    headers,
    body: coded.body,
    framing: r.method === 'GET' ? 'none' : f,
    // Without the token every admin route answers 401 (unknown routes: 404). Behind 1,000
    // other header lines the token may not arrive at all: Node keeps the first 1,000 headers of
    // a request and drops the rest (Node 22 refuses the request instead, 431).
    statuses: [
      ...(t.admitted ? [...r.statuses, ...(noise.oversized ? [401] : [])] : r.statuses.includes(404) && r.statuses.length === 1 ? [404] : [401]),
      ...(overlongSegment(r.path) ? [404] : []),
    ],
    unknown: false,
    mutating: r.mutating,
    admitted: noise.oversized ? undefined : t.admitted,
    coding: c.coding,
    oversized: noise.oversized,
  };
}
