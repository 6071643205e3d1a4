// Requests to the pages: the sign-in form and its link, sign-out, the dashboard and its key
// forms. Sessions, CSRF tokens, sign-in links and key ids are real ones of the running daemon
// (made by the test before the run) mixed with wrong, stale and malformed ones.
import fc from 'fast-check';
import { applyCoding, coding, framing, headerNoise, targetJunk, type Case } from './cases.js';
import type { Coding, Framing } from './wire.js';

export interface WebFixtures {
  /** Signed-in sessions the dashboard forms are sent with; never signed out by the run. */
  sessions: { token: string; csrf: string; keyIds: string[] }[];
  /** Sessions that sign-out may end (with their right CSRF token). */
  disposable: { token: string; csrf: string }[];
  /** Sign-in links not opened yet, links opened already. */
  links: string[];
  usedLinks: string[];
  /** Keys of other accounts (the API's): a dashboard must answer 404 for them and revoke nothing. */
  foreignKeyIds: string[];
  /** A double-submit secret (the prv_csrf cookie of a visitor not signed in). */
  anonCsrf: string;
}

const FORM = 'application/x-www-form-urlencoded';

/** A value for a form field: anything, or the kinds that break pages (markup, NUL, long). */
const fieldValue = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 40 }) },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', '\u0000', 'a'.repeat(300), '😀'.repeat(20), '<script>alert(1)</script>', '"><img src=x>', '\u202e', '%', 'x'.repeat(254)) },
);

const email = fc.oneof(
  { weight: 3, arbitrary: fc.nat(11).map((n) => `signin-${n}@example.test`) },
  { weight: 1, arbitrary: fc.constantFrom(' Signin-1@EXAMPLE.test ', 'a@b', 'no-at-sign', '@example.test', 'a b@example.test', `${'a'.repeat(250)}@example.test`, 'x@y.z\u0000') },
  { weight: 1, arbitrary: fieldValue },
);

const next = fc.oneof(
  fc.constantFrom('/dashboard', '/dashboard/keys?x=1', '//evil.example', 'https://evil.example/', '/dashboard/%2f%2fevil.example', '/dashboard\\evil', 'javascript:alert(1)', '/signin'),
  fieldValue,
);

/** A form body: properly encoded, written raw (unescaped bytes), broken percent-escapes, or over the 8 KB limit. */
type BodyStyle = 'proper' | 'raw' | 'broken' | 'huge';
function formBody(fields: [string, string][], style: BodyStyle): Buffer {
  switch (style) {
    case 'proper':
      return Buffer.from(new URLSearchParams(fields).toString());
    case 'raw':
      return Buffer.from(fields.map(([k, v]) => `${k}=${v}`).join('&'));
    case 'broken':
      return Buffer.concat([Buffer.from(`${fields.map(([k, v]) => `${k}=${encodeURIComponent(v)}`).join('&')}&%zz=%&email=%E0%A4%A&`), Buffer.from([0xff, 0xfe, 0x00])]);
    case 'huge':
      return Buffer.from(`${new URLSearchParams(fields).toString()}&email=${'a'.repeat(9 * 1024)}`);
  }
}

const bodyStyle = fc.oneof(
  { weight: 8, arbitrary: fc.constant<BodyStyle>('proper') },
  { weight: 1, arbitrary: fc.constantFrom<BodyStyle>('raw', 'broken', 'huge') },
);

/** Content-Type of a form post: mostly a form; else what the pages refuse (415) or none. */
const contentType = fc.oneof(
  { weight: 8, arbitrary: fc.constant<string | undefined>(FORM) },
  { weight: 3, arbitrary: fc.constantFrom<string | undefined>(`${FORM}; charset=utf-8`, 'application/json', 'multipart/form-data; boundary=FUZZ', 'text/plain', undefined, 'APPLICATION/X-WWW-FORM-URLENCODED') },
);

/** How a form post is sent, apart from its fields. */
interface Posted {
  contentType: string | undefined;
  style: BodyStyle;
  coding: { coding: Coding | undefined; lying: boolean };
  noise: { headers: [string, string][]; oversized: boolean };
  framing: Framing;
  shape: string;
}

type CsrfChoice = 'right' | 'anon' | 'other' | 'missing' | 'junk' | 'right-then-junk' | 'junk-then-right';
const csrfChoice = fc.oneof(
  { weight: 6, arbitrary: fc.constant<CsrfChoice>('right') },
  { weight: 3, arbitrary: fc.constantFrom<CsrfChoice>('anon', 'other', 'missing', 'junk', 'right-then-junk', 'junk-then-right') },
);

export function pageCases(web: WebFixtures): fc.Arbitrary<Case> {
  const all = [...web.sessions, ...web.disposable];
  /** A cookie header: real sessions, stale or malformed ones, and the double-submit cookie. */
  const sessionCookie = fc.oneof(
    { weight: 6, arbitrary: fc.nat(web.sessions.length - 1).map((i) => ({ token: web.sessions[i]!.token as string | undefined, kind: 'dashboard' as const })) },
    { weight: 1, arbitrary: fc.nat(web.disposable.length - 1).map((i) => ({ token: web.disposable[i]!.token as string | undefined, kind: 'disposable' as const })) },
    { weight: 1, arbitrary: fc.constant({ token: undefined as string | undefined, kind: 'none' as const }) },
    {
      weight: 1,
      arbitrary: fc
        .oneof(fc.constantFrom('', 'x', 'A'.repeat(43), '"quoted"', 'a'.repeat(5_000), `${web.sessions[0]!.token}x`), fc.string({ maxLength: 50 }).filter((s) => !/[\r\n;]/.test(s)))
        .map((token) => ({ token: token as string | undefined, kind: 'junk' as const })),
    },
  );
  const cookieShape = fc.constantFrom('plain', 'with-csrf', 'doubled', 'no-equals');

  function cookieHeader(token: string | undefined, shape: string, anon = web.anonCsrf): [string, string][] {
    const parts: string[] = [];
    if (token !== undefined) parts.push(`prv_session=${token}`);
    if (shape === 'with-csrf') parts.push(`prv_csrf=${anon}`);
    // The first of a repeated cookie counts (web-kit's readCookies): a junk second one changes nothing.
    if (shape === 'doubled') parts.push('prv_session=junk', 'prv_csrf=junk');
    if (shape === 'no-equals') parts.push('garbage', '=', ';;');
    return parts.length ? [['Cookie', parts.join('; ')]] : [];
  }

  /** The csrf field's values for a session token (several when the field is repeated). */
  function csrfValues(choice: CsrfChoice, token: string | undefined, forbidRight: boolean): string[] {
    const right = all.find((s) => s.token === token)?.csrf;
    const other = web.sessions.find((s) => s.token !== token)!.csrf;
    const c = forbidRight && choice !== 'missing' && choice !== 'junk' ? 'other' : choice;
    switch (c) {
      case 'right':
        return right ? [right] : [other];
      case 'anon':
        return [web.anonCsrf];
      case 'other':
        return [other];
      case 'missing':
        return [];
      case 'junk':
        return ['x'.repeat(43)];
      case 'right-then-junk':
        return [right ?? other, 'junk'];
      case 'junk-then-right':
        return ['junk', right ?? other];
    }
  }

  const common = { family: 'page' as const, unknown: false, admitted: true as boolean | undefined };
  const posted: fc.Arbitrary<Posted> = fc.record({ contentType, style: bodyStyle, coding, noise: headerNoise, framing, shape: cookieShape });

  /** A POST of form fields, framed, coded and typed as generated. */
  function post(
    route: string,
    path: string,
    statuses: number[],
    cookie: [string, string][],
    fields: [string, string][],
    p: Posted,
  ): Case {
    let body: Buffer;
    if (p.contentType === 'application/json') body = Buffer.from(JSON.stringify(Object.fromEntries(fields)));
    else if (p.contentType?.startsWith('multipart/')) body = Buffer.from(fields.map(([k, v]) => `--FUZZ\r\nContent-Disposition: form-data; name="${k}"\r\n\r\n${v}\r\n`).join('') + '--FUZZ--\r\n');
    else body = formBody(fields, p.style);
    const coded = applyCoding(body, p.coding);
    const headers: [string, string][] = [...p.noise.headers, ...cookie, ...coded.header];
    if (p.contentType !== undefined) headers.push(['Content-Type', p.contentType]);
    // Every page that reads a form may also refuse it whole: 400 unreadable, 413 over 8 KB, 415 not a form.
    return { ...common, route, method: 'POST', path, headers, body: coded.body, framing: p.framing, statuses: [...statuses, 400, 413, 415], mutating: true, coding: p.coding.coding, oversized: p.noise.oversized };
  }

  const get = (route: string, path: string, statuses: number[], cookie: [string, string][], mutating: boolean, noise: { headers: [string, string][]; oversized: boolean }): Case => ({
    ...common,
    route,
    method: 'GET',
    path,
    headers: [...noise.headers, ...cookie],
    body: Buffer.alloc(0),
    framing: 'none',
    statuses,
    mutating,
    coding: undefined,
    oversized: noise.oversized,
  });

  const signinPage = fc
    .record({ session: sessionCookie, shape: cookieShape, query: fc.constantFrom('', '?signed_out', '?expired', '?next=/dashboard', '?next=//evil.example', '?next=%2F%2Fevil', '?next=a&next=b'), junk: targetJunk, noise: headerNoise })
    .map(({ session, shape, query, junk, noise }) => get('GET /signin', `/signin${query || `?next=${junk}`}`, [200, 303], cookieHeader(session.token, shape), false, noise));

  const signinForm = fc
    .record({ email, next, csrf: fc.constantFrom('anon', 'missing', 'junk', 'mismatch', 'no-cookie'), p: posted })
    .map(({ email: e, next: n, csrf, p }) => {
      // The form's token must repeat the prv_csrf cookie (double submit).
      const cookie: [string, string][] = csrf === 'no-cookie' ? [] : [['Cookie', `prv_csrf=${csrf === 'mismatch' ? 'B'.repeat(43) : web.anonCsrf}`]];
      const fields: [string, string][] = [['email', e], ['next', n]];
      if (csrf !== 'missing') fields.push(['csrf', csrf === 'junk' ? 'nope' : web.anonCsrf]);
      // 200 "check your inbox", 400 not an address, 403 token, 429 a limit.
      return post('POST /signin', '/signin', [200, 403, 429], cookie, fields, p);
    });

  // The link is never opened with a dashboard session's cookie: a new sign-in ends the session
  // the browser had, and those sessions must last the run.
  const verify = fc
    .record({
      token: fc.oneof(
        { weight: 2, arbitrary: web.links.length ? fc.constantFrom(...web.links) : fc.constant('none') },
        { weight: 1, arbitrary: fc.constantFrom(...web.usedLinks, 'A'.repeat(43), '', `${web.usedLinks[0]}x`) },
        { weight: 1, arbitrary: targetJunk },
      ),
      repeat: fc.constantFrom('once', 'twice', 'absent'),
      cookie: fc.oneof(fc.constant<string | undefined>(undefined), fc.constantFrom(...web.disposable.map((s) => s.token)), fc.constant('junk')),
      noise: headerNoise,
    })
    .map(({ token, repeat, cookie, noise }) => {
      const query = repeat === 'absent' ? '' : repeat === 'twice' ? `?token=${token}&token=${token}` : `?token=${token}`;
      // The link's page ("Sign in as", 200) or why it cannot be used; a GET never signs in.
      return get('GET /signin/verify', `/signin/verify${query}`, [200, 404, 410], cookie === undefined ? [] : [['Cookie', `prv_session=${cookie}`]], false, noise);
    });

  // The link page's button: the token with the double-submit CSRF token (issue 26). Only the
  // right pair signs in (303); a foreign form is refused (403) and leaves the link unused.
  const verifyPost = fc
    .record({
      token: fc.oneof(
        { weight: 2, arbitrary: web.links.length ? fc.constantFrom(...web.links) : fc.constant('none') },
        { weight: 1, arbitrary: fc.constantFrom(...web.usedLinks, 'A'.repeat(43), '') },
        { weight: 1, arbitrary: targetJunk },
      ),
      csrf: fc.constantFrom('anon', 'missing', 'junk', 'mismatch', 'no-cookie'),
      p: posted,
    })
    .map(({ token, csrf, p }) => {
      const cookie: [string, string][] = csrf === 'no-cookie' ? [] : [['Cookie', `prv_csrf=${csrf === 'mismatch' ? 'B'.repeat(43) : web.anonCsrf}`]];
      const fields: [string, string][] = [['token', token]];
      if (csrf !== 'missing') fields.push(['csrf', csrf === 'junk' ? 'nope' : web.anonCsrf]);
      return post('POST /signin/verify', '/signin/verify', [303, 403, 404, 410], cookie, fields, p);
    });

  const signout = fc.record({ session: sessionCookie, csrf: csrfChoice, p: posted }).map(({ session, csrf, p }) =>
    // A dashboard session never gets its right token here: only disposable ones are signed out.
    post('POST /signout', '/signout', [303, 403], cookieHeader(session.token, p.shape), csrfValues(csrf, session.token, session.kind === 'dashboard').map((v) => ['csrf', v]), p),
  );

  const dashboard = fc.record({ session: sessionCookie, shape: cookieShape, noise: headerNoise }).map(({ session, shape, noise }) => get('GET /dashboard', '/dashboard', [200, 303], cookieHeader(session.token, shape), false, noise));

  const createKey = fc.record({ session: sessionCookie, csrf: csrfChoice, name: fc.option(fieldValue, { nil: undefined }), p: posted }).map(({ session, csrf, name, p }) => {
    const fields: [string, string][] = csrfValues(csrf, session.token, false).map((v) => ['csrf', v]);
    if (name !== undefined) fields.push(['name', name]);
    return post('POST /dashboard/keys', '/dashboard/keys', [303, 403], cookieHeader(session.token, p.shape), fields, p);
  });

  const revoke = fc
    .record({
      session: sessionCookie,
      csrf: csrfChoice,
      id: fc.oneof(
        { weight: 2, arbitrary: fc.constantFrom(...web.sessions.flatMap((s) => s.keyIds)) },
        { weight: 2, arbitrary: fc.constantFrom(...web.foreignKeyIds) },
        { weight: 1, arbitrary: targetJunk.filter((s) => s.length > 0 && !s.includes('/')) },
      ),
      p: posted,
    })
    .map(({ session, csrf, id, p }) =>
      post('POST /dashboard/keys/:id/revoke', `/dashboard/keys/${id}/revoke`, [303, 403, 404], cookieHeader(session.token, p.shape), csrfValues(csrf, session.token, false).map((v) => ['csrf', v]), p),
    );

  const assets = fc.record({ path: fc.constantFrom('/assets/style.css', '/assets/pages.js'), noise: headerNoise }).map(({ path, noise }) => get(`GET ${path}`, path, [200], [], false, noise));

  // No such route: the JSON 404 (the pages' error page is for their own routes).
  const wrongMethod = fc
    .record({ which: fc.constantFrom('GET /signout', 'PUT /dashboard/keys', 'DELETE /signin', 'GET /dashboard/keys/x/revoke', 'POST /dashboard', 'PUT /signin/verify'), noise: headerNoise })
    .map(({ which, noise }): Case => {
      const [method, path] = which.split(' ') as [string, string];
      return { ...get(which, path, [404], [], false, noise), method, unknown: true, framing: method === 'GET' ? 'none' : 'length' };
    });

  return fc.oneof(
    { weight: 2, arbitrary: signinPage },
    { weight: 4, arbitrary: signinForm },
    { weight: 3, arbitrary: verify },
    { weight: 2, arbitrary: verifyPost },
    { weight: 2, arbitrary: signout },
    { weight: 2, arbitrary: dashboard },
    { weight: 3, arbitrary: createKey },
    { weight: 3, arbitrary: revoke },
    { weight: 1, arbitrary: assets },
    { weight: 1, arbitrary: wrongMethod },
  );
}
