// Issue 26 (hardening, round two): input that must get the same plain answer from both stores
// and never a 500: NUL and control characters in every string that reaches the store, ids that
// name what every object inherits, malformed CSRF fields, absolute-form request targets,
// transfer codings and Expect: 100-continue, and the 25-active-key limit under concurrency.
// A contract file: run on the embedded store and on PostgreSQL (vitest.config.ts). Real sockets
// on 127.0.0.1 only.
import { mkdirSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tinyJpeg } from '../fixtures/make.js';
import { newKeyValue, sha256Hex } from '../../src/daemon/accounts/key-format.js';
import { runDaemonOutbox } from '../../src/commands/daemon-outbox.js';
import { sameToken } from '../../src/daemon/web/csrf.js';
import { composeSigninMessage } from '../../src/daemon/web/mailer.js';
import { terminalSafe } from '../../src/daemon/web/outbox.js';
import { b64, expectError, http, listen, makeApp, tempDir, type TestApp } from './helpers.js';
import { csrfOf, signIn, webApp, type WebApp } from './signin-helpers.js';

/** Control characters but the line breaks and tabs of the page's own markup. */
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f]/;
const TOKEN = 'hostile-input-admin-token';
const ADMIN = { 'x-provenance-admin-token': TOKEN };

interface RawAnswer {
  /** Every response head the server wrote, in order (a 100 Continue, then the final one). */
  heads: string[];
  status: number;
  body: string;
}

/**
 * One request written as raw bytes on 127.0.0.1 (`Connection: close` in `head`), read until the
 * server closes. `afterContinue` is written only once a `100 Continue` arrived.
 */
function raw(port: number, head: string, body: Buffer | string = '', afterContinue?: Buffer | string): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer; got ${JSON.stringify(text.slice(0, 300))}`));
    }, 15_000);
    socket.on('data', (d) => {
      text += d.toString('latin1');
      if (afterContinue !== undefined && /^HTTP\/1\.1 100 /.test(text) && text.includes('\r\n\r\n')) {
        socket.write(afterContinue);
        afterContinue = undefined;
      }
    });
    socket.on('error', () => {});
    socket.on('close', () => {
      clearTimeout(timer);
      const heads: string[] = [];
      let rest = text;
      for (;;) {
        const end = rest.indexOf('\r\n\r\n');
        if (end < 0) break;
        heads.push(rest.slice(0, end));
        rest = rest.slice(end + 4);
        if (!/^HTTP\/1\.1 1\d\d /.test(heads.at(-1)!)) break;
      }
      const final = heads.at(-1) ?? '';
      resolve({ heads, status: Number(final.split(' ')[1]), body: rest });
    });
    socket.write(Buffer.from(head, 'latin1'));
    if (body.length) socket.write(body);
  });
}

const portOf = (base: string) => Number(new URL(base).port);
const chunked = (bytes: Buffer) => Buffer.concat([Buffer.from(`${bytes.length.toString(16)}\r\n`), bytes, Buffer.from('\r\n0\r\n\r\n')]);

describe('NUL bytes and inherited names as ids: nothing found, on both stores (issue 26, items 6 and 8)', () => {
  let t: TestApp;
  let base: string;
  let key: string;
  beforeAll(async () => {
    t = await makeApp({ adminTokenSha256: sha256Hex(TOKEN) });
    base = await listen(t.app);
    ({ key } = await t.account('nul'));
  });
  afterAll(() => t.close());

  it('{"upload": "\\u0000"} and other upload ids with a NUL: 404 not_found, param upload', async () => {
    for (const upload of ['\u0000', 'upl_\u0000', `upl_${'a'.repeat(23)}\u0000`, '__proto__', 'constructor']) {
      expectError(await http(base, 'POST', '/v1/detect', { key, json: { upload } }), 404, 'not_found', 'upload');
    }
  });

  it('store lookups by a value with a NUL, or by a name every object inherits, find nothing', async () => {
    const { store } = t.app.services;
    for (const id of ['\u0000', 'key_\u0000x', '__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      expect(await store.accountById(id), id).toBeUndefined();
      expect(await store.accountByEmail(id), id).toBeUndefined();
      expect(await store.keyById(id), id).toBeUndefined();
      expect(await store.keyByHash(id), id).toBeUndefined();
      expect(await store.uploadById(id), id).toBeUndefined();
      expect(await store.sessionByHash(id), id).toBeUndefined();
      expect(await store.listKeys(id), id).toEqual([]);
      expect(await store.usage(id, '2026-11'), id).toBe(0);
      expect(await store.revokeKey(id, '2026-11-15T12:00:00.000Z'), id).toBeUndefined();
      expect(await store.setAccountPlan(id, { plan: 'free' }), id).toBeUndefined();
      expect(await store.deleteSession(id), id).toBe(false);
      expect(await store.useSigninToken(id, new Date('2026-11-15T12:00:00Z')), id).toEqual({ ok: false, problem: 'unknown' });
    }
    expect(({} as Record<string, unknown>).plan).toBeUndefined();
  });

  it('the admin endpoint: a NUL in a key id is a 404, in an address or a key name a 400', async () => {
    const admin = (method: string, path: string, json?: unknown) => http(base, method, `/admin/v1${path}`, { headers: ADMIN, json });
    expectError(await admin('POST', '/keys/key_%00/revoke'), 404, 'not_found');
    expectError(await admin('POST', '/keys/constructor/revoke'), 404, 'not_found');
    expectError(await admin('GET', '/keys?email=a%00b@example.test'), 400, 'invalid_request');
    expectError(await admin('POST', '/accounts', { email: 'a\u0000b@example.test' }), 400, 'invalid_request');
    expectError(await admin('POST', '/accounts', { email: 'a\u001b[31mb@example.test' }), 400, 'invalid_request');
    const email = (await t.app.services.store.listAccounts())[0]!.email;
    expectError(await admin('POST', '/keys', { email, name: 'ci\u0000' }), 400, 'invalid_request');
    expectError(await admin('POST', '/keys', { email, name: 'ci\u0007' }), 400, 'invalid_request');
    expect((await admin('POST', '/keys', { email, name: 'ci' })).status).toBe(201);
    // Fixtures (`daemon seed`, --fixtures) too.
    const seeded = (name: string, address = 'seeded@example.test') => admin('POST', '/seed', { accounts: [{ email: address, keys: [{ key: newKeyValue(), name }] }] });
    expectError(await seeded('ci\u0000'), 400, 'invalid_request');
    expectError(await seeded('ci', 'se\u0000eded@example.test'), 400, 'invalid_request');
    expect((await seeded('ci')).status).toBe(200);
  });
});

describe('daemon import: ids that name what every object inherits are refused; maps have no prototype (issue 26, item 8)', () => {
  let t: TestApp;
  let base: string;
  beforeAll(async () => {
    t = await makeApp({ adminTokenSha256: sha256Hex(TOKEN) });
    base = await listen(t.app);
    await t.account('importer@example.test');
  });
  afterAll(() => t.close());

  const admin = (method: string, path: string, json?: unknown) => http(base, method, `/admin/v1${path}`, { headers: ADMIN, json });
  const inherited = () => Object.keys(Object.prototype).concat(['polluted', '2026-11'].filter((k) => k in {}));

  it('__proto__ and constructor as account, key or upload ids: 400 naming each field, nothing imported, Object.prototype untouched', async () => {
    const state = (await admin('GET', '/export')).body;
    const before = JSON.stringify(state);
    const bad = structuredClone(state);
    const account = bad.accounts[0];
    // JSON.parse makes "__proto__" an own key, as the daemon's body parser does.
    const doc = JSON.parse(
      JSON.stringify({
        ...bad,
        accounts: [...bad.accounts, { ...account, id: '__proto__', email: 'proto@example.test' }, { ...account, id: 'constructor', email: 'ctor@example.test' }],
        keys: [...bad.keys, { ...bad.keys[0], id: 'constructor', account: '__proto__', sha256: 'c'.repeat(64) }],
        usage: [{ account: '__proto__', period: '2026-11', calls: 5 }],
      }),
    );
    const r = await admin('POST', '/import', doc);
    expectError(r, 400, 'invalid_request');
    const message: string = r.body.error.message;
    expect(message).toContain(`$.accounts[1].id: "__proto__" cannot be an id`);
    expect(message).toContain(`$.accounts[2].id: "constructor" cannot be an id`);
    expect(message).toContain(`$.keys[1].id: "constructor" cannot be an id`);
    expect(message).toContain(`$.usage[0].account: "__proto__" cannot be an id`);
    expect(JSON.stringify((await admin('GET', '/export')).body)).toBe(before);
    expect(inherited()).toEqual([]);
    expect(({} as Record<string, unknown>)['2026-11']).toBeUndefined();
  });

  it('control characters in any string of an imported state: 400', async () => {
    const bad = (await admin('GET', '/export')).body;
    bad.keys[0].name = 'ci\u0000';
    const r = await admin('POST', '/import', bad);
    expectError(r, 400, 'invalid_request');
    expect(r.body.error.message).toContain('$.keys[0].name: must not contain control characters');
  });

  it('a store given such ids anyway keeps them as plain entries: nothing reaches Object.prototype', async () => {
    const { store } = t.app.services;
    const state = await store.exportState();
    const account = state.accounts[0]!;
    await store.importState({
      ...state,
      accounts: [...state.accounts, { ...account, id: '__proto__', email: 'proto@example.test' }],
      usage: [...state.usage, { account: '__proto__', period: '2026-12', calls: 7 }],
    });
    expect(({} as Record<string, unknown>)['2026-12']).toBeUndefined();
    expect(await store.usage('__proto__', '2026-12')).toBe(7);
    expect((await store.accountById('__proto__'))?.email).toBe('proto@example.test');
    expect(await store.accountById('constructor')).toBeUndefined();
    await store.importState(state);
    expect(await store.accountById('__proto__')).toBeUndefined();
  });
});

describe('the sign-in form and the dashboard with NUL and control characters (issue 26, items 6 and 7)', () => {
  let t: WebApp;
  beforeAll(async () => {
    t = await webApp();
  });
  afterAll(() => t.close());

  it('an address with NUL, ESC or BEL: 400 on the form, no mail, the page does not echo the character', async () => {
    const c = t.client();
    const csrf = csrfOf((await c.get('/signin')).text);
    for (const email of ['a\u0000@example.test', 'a@example.test\u0000', '\u001b[2J\u001b[31mx@example.test', 'x\u0007@example.test', 'x@exa\u001bmple.test', 'x\u202e@example.test']) {
      const page = await c.post('/signin', { email, csrf });
      expect(page.status, JSON.stringify(email)).toBe(400);
      expect(page.text).toMatch(/control characters/);
      expect(page.text).not.toMatch(CONTROL);
      expect(page.text).not.toContain('\u202e');
    }
    expect(t.mailer.sent).toEqual([]);
    expect((await c.post('/signin', { email: 'fine@example.test', csrf })).status).toBe(200);
    expect(t.mailer.sent.map((m) => m.to)).toEqual(['fine@example.test']);
  });

  it('a key id with a NUL, or an inherited name, in the revoke path: 404, nothing revoked', async () => {
    const c = t.client();
    const page = await signIn(t, c, 'revoker@example.test');
    const csrf = csrfOf(page.text);
    for (const id of ['key_%00', '%00', 'key_%00x', '__proto__', 'constructor', 'toString']) {
      const r = await c.post(`/dashboard/keys/${id}/revoke`, { csrf });
      expect(r.status, id).toBe(404);
      expect(r.text).toContain('No such key');
    }
    const account = await t.app.services.accounts.findByEmail('revoker@example.test');
    const keys = await t.app.services.accounts.keysOfAccount(account!.id);
    expect(keys.filter((k) => k.revoked_at === null)).toHaveLength(1);
  });
});

describe('control characters from input never reach a terminal or a mail header (issue 26, item 7)', () => {
  it('daemon outbox shows an address or date with ESC, BEL or a bidi override escaped', async () => {
    const dir = tempDir();
    try {
      mkdirSync(join(dir.dir, 'outbox'));
      const link = 'http://127.0.0.1:8787/signin/verify?token=' + 'A'.repeat(43);
      writeFileSync(join(dir.dir, 'outbox', '20261115T120000000Z-000001-abcd.eml'), `To: \u001b]0;pwned\u0007\u001b[2Jx\u202e@example.test\r\nDate: Sun\u001b[31m\r\n\r\n${link}\r\n`);
      let out = '';
      const stdout = new PassThrough().on('data', (d: Buffer) => (out += d.toString()));
      const io = { stdin: new PassThrough(), stdout, stderr: new PassThrough(), env: {} };
      expect(await runDaemonOutbox({ dataDir: dir.dir, last: false, json: false }, io)).toBe(0);
      expect(out).not.toMatch(CONTROL);
      expect(out).not.toContain('\u202e');
      expect(out).toContain('\\u{1b}]0;pwned\\u{7}\\u{1b}[2Jx\\u{202e}@example.test');
      expect(out).toContain(link);
    } finally {
      dir.cleanup();
    }
  });

  it('terminalSafe keeps printable text (accents, other scripts) and escapes every control or format character', () => {
    expect(terminalSafe('José <ü@例え.jp>')).toBe('José <ü@例え.jp>');
    expect(terminalSafe('a\u0000b\rc\nd\u007f\u009b\u200b')).toBe('a\\u{0}b\\u{d}c\\u{a}d\\u{7f}\\u{9b}\\u{200b}');
  });

  it('a sign-in mail is never composed with a control character in its To: header', () => {
    const mail = { link: 'http://127.0.0.1/signin/verify?token=x', expiresAt: new Date(), date: new Date() };
    expect(() => composeSigninMessage({ ...mail, to: 'x\u001b[31m@example.test' })).toThrow(/control characters/);
    expect(() => composeSigninMessage({ ...mail, to: 'x@example.test\r\nBcc: y@example.test' })).toThrow(/control characters/);
    expect(composeSigninMessage({ ...mail, to: 'x@example.test' })).toContain('To: x@example.test\r\n');
  });
});

describe('CSRF fields of the wrong format: 403, never a 500 (issue 26, item 10)', () => {
  let t: WebApp;
  beforeAll(async () => {
    t = await webApp();
  });
  afterAll(() => t.close());

  const malformed = ['é'.repeat(43), '€'.repeat(43), '\u0000'.repeat(43), 'a'.repeat(42) + 'é', ' '.repeat(43), 'a'.repeat(44), ''];

  it('sameToken: false for every malformed value, on either side, without throwing', () => {
    const good = 'A'.repeat(43);
    for (const bad of malformed) {
      expect(sameToken(bad, good)).toBe(false);
      expect(sameToken(good, bad)).toBe(false);
    }
    expect(sameToken(good, good)).toBe(true);
    expect(sameToken(undefined, good)).toBe(false);
    expect(sameToken(['x'], good)).toBe(false);
  });

  it('POST /signin (no sign-in needed), /dashboard/keys and /signout', async () => {
    const anonymous = t.client();
    await anonymous.get('/signin');
    for (const csrf of malformed) {
      expect((await anonymous.post('/signin', { email: 'a@example.test', csrf })).status, csrf).toBe(403);
    }
    const c = t.client();
    await signIn(t, c, 'csrf@example.test');
    for (const csrf of malformed) {
      expect((await c.post('/dashboard/keys', { csrf, name: 'x' })).status, csrf).toBe(403);
      expect((await c.post('/signout', { csrf })).status, csrf).toBe(403);
    }
    expect(t.mailer.sent).toHaveLength(1);
    // Still signed in, with only the first key.
    expect((await c.get('/dashboard')).status).toBe(200);
  });
});

describe('absolute-form request targets are routed, logged and checked as their path (issue 26, item 9)', () => {
  const media = b64(tinyJpeg());
  const body = JSON.stringify({ media });
  const head = (port: number, key: string, extra = '') =>
    `POST http://127.0.0.1:${port}/v1/detect HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nAuthorization: Bearer ${key}\r\n` +
    `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extra}Connection: close\r\n\r\n`;

  it('test mode: the request log has it, with its path', async () => {
    const t = await makeApp({ testMode: true });
    try {
      const base = await listen(t.app);
      const { key } = await t.account('absolute');
      const r = await raw(portOf(base), head(portOf(base), key), body);
      expect(r.status).toBe(200);
      const logged = t.app.services.testing.log.list({});
      expect(logged.map((e) => [e.method, e.path, e.status])).toEqual([['POST', '/v1/detect', 200]]);
      // A forced answer works there as on /v1/detect.
      const forced = await raw(portOf(base), head(portOf(base), key, 'Provenance-Test-Response: internal_error\r\n'), body);
      expect(forced.status).toBe(500);
    } finally {
      await t.close();
    }
  });

  it('outside test mode: the Provenance-Test-Response header is refused there too, nothing counted', async () => {
    const t = await makeApp({ testMode: false });
    try {
      const base = await listen(t.app);
      const { key, accountId } = await t.account('absolute');
      const r = await raw(portOf(base), head(portOf(base), key, 'Provenance-Test-Response: quota_exceeded\r\n'), body);
      expect(r.status).toBe(400);
      expect(JSON.parse(r.body).error.param).toBe('Provenance-Test-Response');
      expect(await t.app.services.store.usage(accountId, '2026-11')).toBe(0);
      expect(await t.app.services.quota.state((await t.app.services.accounts.accountById(accountId))!)).toMatchObject({ used: 0 });
    } finally {
      await t.close();
    }
  });
});

describe('transfer codings and Expect: 100-continue (issue 26, also found)', () => {
  let t: TestApp;
  let port: number;
  let key: string;
  beforeAll(async () => {
    t = await makeApp();
    port = portOf(await listen(t.app));
    ({ key } = await t.account('coding'));
  });
  afterAll(() => t.close());

  it('Transfer-Encoding: gzip, chunked: 415 on /v1/detect and /v1/uploads, nothing stored or counted', async () => {
    const json = gzipSync(JSON.stringify({ media: b64(tinyJpeg()) }));
    for (const coding of ['gzip, chunked', 'GZIP,chunked', 'deflate, chunked', 'identity, chunked']) {
      const detect = await raw(
        port,
        `POST /v1/detect HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nTransfer-Encoding: ${coding}\r\nConnection: close\r\n\r\n`,
        chunked(json),
      );
      expect(detect.status, coding).toBe(415);
      expect(JSON.parse(detect.body).error.type).toBe('unsupported_content_type');
      const upload = await raw(
        port,
        `POST /v1/uploads HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: image/jpeg\r\nTransfer-Encoding: ${coding}\r\nConnection: close\r\n\r\n`,
        chunked(gzipSync(tinyJpeg())),
      );
      expect(upload.status, coding).toBe(415);
    }
    expect(await t.app.services.store.uploadFiles()).toEqual(new Set());
    // Plain chunked is read as before.
    const plain = await raw(
      port,
      `POST /v1/uploads HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${key}\r\nContent-Type: image/jpeg\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n`,
      chunked(Buffer.from(tinyJpeg())),
    );
    expect(plain.status).toBe(201);
  });

  it('Expect: 100-continue without a key: 401 first, no 100 Continue; with a key: 100, then the answer', async () => {
    const body = Buffer.from(tinyJpeg());
    const expectHead = (auth: string) =>
      `POST /v1/uploads HTTP/1.1\r\nHost: 127.0.0.1\r\n${auth}Content-Type: image/jpeg\r\nContent-Length: ${body.length}\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`;
    for (const auth of ['', 'Authorization: Bearer prv_nonsense\r\n', `Authorization: Bearer ${key.slice(0, -1)}${key.endsWith('a') ? 'b' : 'a'}\r\n`]) {
      const refused = await raw(port, expectHead(auth), '', body);
      expect(refused.heads.map((h) => h.split('\r\n')[0])).toEqual(['HTTP/1.1 401 Unauthorized']);
    }
    const accepted = await raw(port, expectHead(`Authorization: Bearer ${key}\r\n`), '', body);
    expect(accepted.heads.map((h) => h.split('\r\n')[0])).toEqual(['HTTP/1.1 100 Continue', 'HTTP/1.1 201 Created']);
    const detect = await raw(
      port,
      `POST /v1/detect HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 20\r\nExpect: 100-continue\r\nConnection: close\r\n\r\n`,
      '',
      '{"media":"AAAAAA=="}',
    );
    expect(detect.heads.map((h) => h.split('\r\n')[0])).toEqual(['HTTP/1.1 401 Unauthorized']);
  });
});

describe('the 25-active-key limit under concurrency: exact, never a 500 (issue 26, item 4)', () => {
  let t: WebApp;
  beforeAll(async () => {
    t = await webApp();
  });
  afterAll(() => t.close());

  it('40 parallel "create key" posts on the dashboard: 25 active keys, every answer a redirect', async () => {
    const c = t.client();
    const csrf = csrfOf((await signIn(t, c, 'many@example.test')).text);
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => c.post('/dashboard/keys', { csrf, name: `k${i}` })));
    expect(answers.map((a) => a.status)).toEqual(new Array(40).fill(303));
    const account = await t.app.services.accounts.findByEmail('many@example.test');
    const keys = await t.app.services.accounts.keysOfAccount(account!.id);
    expect(keys.filter((k) => k.revoked_at === null)).toHaveLength(25);
  });

  it('40 parallel creates through Accounts (the admin endpoint, the CLI): 25 active, the rest refused by the limit', async () => {
    const { accounts } = t.app.services;
    await accounts.createAccount({ email: 'admin-many@example.test' });
    const outcomes = await Promise.allSettled(Array.from({ length: 40 }, (_, i) => accounts.createKey('admin-many@example.test', `k${i}`)));
    const refused = outcomes.filter((o) => o.status === 'rejected').map((o) => (o as PromiseRejectedResult).reason);
    expect(outcomes.filter((o) => o.status === 'fulfilled')).toHaveLength(24);
    expect(refused.map((e) => [e.code, /at most 25 active keys/.test(e.message)])).toEqual(new Array(16).fill(['invalid', true]));
    const account = await accounts.findByEmail('admin-many@example.test');
    expect((await accounts.keysOfAccount(account!.id)).filter((k) => k.revoked_at === null)).toHaveLength(25);
  });
});
