// POST /verify/detect, the Verify page's check (issue 25), over real HTTP: only with a session
// and its CSRF token; each file counts exactly one call, as POST /v1/detect does (one reserved,
// none for a refused request, given back when the check fails), under the plan's burst limit;
// the answer carries the card drawn by src/report/card.ts and the /v1 result.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import { tmpdir } from 'node:os';
import sharp from 'sharp';
import { makePki, signC2pa, simpleManifest, tinyJpeg } from '../fixtures/make.js';
import { actionsManifest, created, IPTC } from '../helpers/explained.js';
import { CORPUS_FILES, HAS_CORPUS, loadExpected } from '../helpers/corpus.js';
import { csrfOf, signIn, webApp, type WebApp, type WebClient } from './signin-helpers.js';

let t: WebApp;
beforeAll(async () => {
  t = await webApp();
});
afterAll(() => t.close());

async function send(c: WebClient, bytes: Uint8Array, headers: Record<string, string> = {}) {
  const cookie = [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  const r = await fetch(`${t.base}/verify/detect`, {
    method: 'POST',
    headers: { 'content-type': 'application/octet-stream', ...(cookie ? { cookie } : {}), ...headers },
    body: bytes,
  });
  return { status: r.status, headers: r.headers, body: (await r.json()) as any };
}

async function signedIn(email: string): Promise<{ c: WebClient; csrf: string }> {
  const c = t.client();
  await signIn(t, c, email);
  const page = await c.get('/verify');
  expect(page.status).toBe(200);
  return { c, csrf: /id="csrf" value="([^"]+)"/.exec(page.text)![1]! };
}

const used = async (c: WebClient) => Number(/Calls this month<\/dt><dd>(\d+)/.exec((await c.get('/dashboard')).text)![1]);

describe('the Verify page', () => {
  it('needs a session; says what a file costs before one is sent; allows data: pictures only there', async () => {
    const anon = t.client();
    const r = await anon.get('/verify');
    expect(r.status).toBe(303);
    expect(r.location).toMatch(/^\/signin/);
    expect((await send(anon, tinyJpeg())).status).toBe(401);

    const { c } = await signedIn('page@example.com');
    const page = await c.get('/verify');
    expect(page.text).toContain('Each file you check costs one call');
    expect(page.text).toContain('500 of 500 calls left');
    expect(page.headers.get('content-security-policy')).toContain("img-src 'self' data:");
    expect((await c.get('/dashboard')).headers.get('content-security-policy')).toContain("img-src 'self';");
    expect((await c.get('/dashboard')).text).toContain('href="/verify"');
    const css = await c.get('/assets/card.css');
    expect(css.status).toBe(200);
    expect(css.text).toContain('prefers-color-scheme');
    expect((await c.get('/assets/verify.js')).status).toBe(200);
  });

  it('one file, one call: the card and the result come back; the dashboard counts it', async () => {
    const { c, csrf } = await signedIn('one@example.com');
    const name = 'holiday <b>"1"</b>.jpg';
    const r = await send(c, tinyJpeg({ width: 200, height: 100 }), { 'x-csrf-token': csrf, 'x-file-name': encodeURIComponent(name) });
    expect(r.status).toBe(200);
    expect(r.body.result.media.type).toBe('image/jpeg');
    expect(r.body.result.id).toMatch(/^chk_/);
    expect(r.body.quota).toEqual({ used: 1, limit: 500, remaining: 499 });
    expect(r.body.html).toContain('<article class="card"');
    expect(r.body.html).toContain('holiday &lt;b&gt;&quot;1&quot;&lt;/b&gt;.jpg');
    expect(r.body.html).toMatch(/<img class="file-thumb" src="data:image\/webp;base64,/);
    // The card opens with the file's verdict; the /v1 result keeps the hosted shape (no verdict).
    expect(r.body.html).toContain('<p class="verdict verdict-none_found">No AI marker found (that proves nothing)</p>');
    expect(r.body.result).not.toHaveProperty('verdict');
    expect(await used(c)).toBe(1);
  });

  it("an edit of an AI-made picture: the card's verdict reads the ingredient tree from the daemon's own read (issue 31)", async () => {
    const { c, csrf } = await signedIn('gemini@example.com');
    const pkiDir = mkdtempSync(join(tmpdir(), 'prov-verify-pki-'));
    onTestFinished(() => rmSync(pkiDir, { recursive: true, force: true }));
    const pki = makePki(pkiDir);
    const parent = await signC2pa(tinyJpeg({ seed: 51 }), 'image/jpeg', actionsManifest('parent.jpg', 'image/jpeg', [created('trainedAlgorithmicMedia')]), pki);
    const actions = [
      { action: 'c2pa.opened', parameters: { ingredientIds: ['parent'] } },
      { action: 'c2pa.edited', digitalSourceType: `${IPTC}composite`, softwareAgent: { name: 'Google Gemini' } },
    ];
    const edit = await signC2pa(tinyJpeg({ seed: 52 }), 'image/jpeg', actionsManifest('edit.jpg', 'image/jpeg', actions), pki, {
      ingredients: [{ json: { title: 'parent.jpg', relationship: 'parentOf', label: 'parent' }, bytes: parent, format: 'image/jpeg' }],
    });
    const r = await send(c, edit, { 'x-csrf-token': csrf, 'x-file-name': 'edit.jpg' });
    expect(r.status).toBe(200);
    expect(r.body.html).toContain(
      '<p class="verdict verdict-contains">Contains AI-generated content: Google Gemini edit of an AI-made picture, as claimed (signed C2PA manifest whose signer is not on the trust list, so its names are unverified)</p>',
    );
    expect(r.body.result.matches[0].claims).toMatchObject({ ai_generated: false });
    expect(r.body.result).not.toHaveProperty('verdict');
  });

  // Issue 40 item 5: the card's pictures are made within the daemon's limits, from bounded
  // decodes: a manifest's thumbnails over 3,072 x 3,072 are not decoded, and the card says so.
  it("a manifest's huge thumbnails are not decoded: the card names them in a note, the small one is drawn", async () => {
    const { c, csrf } = await signedIn('huge-thumbs@example.com');
    const pkiDir = mkdtempSync(join(tmpdir(), 'prov-verify-thumbs-'));
    onTestFinished(() => rmSync(pkiDir, { recursive: true, force: true }));
    const pki = makePki(pkiDir);
    const png = async (side: number) => new Uint8Array(await sharp({ create: { width: side, height: side, channels: 3, background: { r: 9, g: 99, b: 199 } } }).png().toBuffer());
    const [huge, small] = [await png(3200), await png(120)];
    const manifest = {
      ...simpleManifest('thumbs.jpg', 'image/jpeg'),
      ingredients: [
        { title: 'huge.png', format: 'image/png', relationship: 'componentOf', thumbnail: { format: 'image/png', identifier: 'huge.png' } },
        { title: 'small.png', format: 'image/png', relationship: 'componentOf', thumbnail: { format: 'image/png', identifier: 'small.png' } },
      ],
    };
    const file = await signC2pa(tinyJpeg({ seed: 53 }), 'image/jpeg', manifest, pki, {
      thumbnail: { format: 'image/png', bytes: huge },
      resources: [
        { id: 'huge.png', bytes: huge },
        { id: 'small.png', bytes: small },
      ],
    });
    const r = await send(c, file, { 'x-csrf-token': csrf, 'x-file-name': 'thumbs.jpg' });
    expect(r.status).toBe(200);
    expect(r.body.html).toContain('<p class="dim">2 pictures over 3,072 x 3,072 pixels, not decoded (3,200 x 3,200 pixels)</p>');
    expect(r.body.html).not.toMatch(/class="claim-thumb"/);
    expect(r.body.html.match(/<img class="ing-thumb" src="data:image\/webp/g)).toHaveLength(1);
    expect(r.body.html).toMatch(/<img class="file-thumb" src="data:image\/webp/);
  });

  it('refused requests count nothing: no CSRF token, a wrong one, an empty file', async () => {
    const { c, csrf } = await signedIn('refused@example.com');
    expect((await send(c, tinyJpeg())).status).toBe(403);
    expect((await send(c, tinyJpeg(), { 'x-csrf-token': 'A'.repeat(43) })).status).toBe(403);
    const empty = await send(c, new Uint8Array(0), { 'x-csrf-token': csrf });
    expect(empty.status).toBe(400);
    expect(empty.body.error.type).toBe('invalid_request');
    expect(await used(c)).toBe(0);
  });

  it("the plan's burst limit applies as it does to a key: the 11th file in a minute is a 429 with Retry-After", async () => {
    const { c, csrf } = await signedIn('burst@example.com');
    for (let i = 0; i < 10; i++) expect((await send(c, tinyJpeg({ seed: i }), { 'x-csrf-token': csrf })).status).toBe(200);
    const refused = await send(c, tinyJpeg(), { 'x-csrf-token': csrf });
    expect(refused.status).toBe(429);
    expect(refused.body.error.type).toBe('rate_limited');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(refused.body.quota.used).toBe(10);
    expect(await used(c)).toBe(10);
    t.clock.advance(61_000);
    expect((await send(c, tinyJpeg(), { 'x-csrf-token': csrf })).status).toBe(200);
  });

  it.skipIf(!HAS_CORPUS)("a signed file's card names its signer and shows the manifest's own thumbnails", async () => {
    const { c, csrf } = await signedIn('signed@example.com');
    const r = await send(c, readFileSync(join(CORPUS_FILES, 'CA.jpg')), { 'x-csrf-token': csrf, 'x-file-name': 'CA.jpg' });
    expect(r.status).toBe(200);
    expect(r.body.html).toContain(loadExpected()['CA.jpg']!.c2pa.issuer!);
    expect(r.body.html).toMatch(/<img class="claim-thumb" src="data:image\/webp/);
    expect(r.body.html).toMatch(/<img class="ing-thumb" src="data:image\/webp/);
    // The API decided trust: the card says so, not "no trust anchors configured".
    expect(r.body.html).toContain('signer not trusted by the API');
  });
});

// The pool moves a request's bytes to its worker (transfer, no copy). The card's pictures are
// made from those bytes after the check: on a moved (detached) buffer there were none, and the
// error was swallowed (issue 34). The tests above run the engine on the main thread (workers: 0)
// unless the suite runs on dist/; this one always runs a real pool (the built worker).
describe('the Verify page with the worker pool on', () => {
  let pooled: WebApp;
  const logged: string[] = [];
  beforeAll(async () => {
    const logger = { level: 'info', stream: { write: (line: string) => logged.push(line) } };
    pooled = await webApp({}, { workers: 1, logger });
  });
  afterAll(() => pooled?.close());

  it('draws the thumbnail of a file the worker checked, and logs no failure', async () => {
    expect(pooled.app.services.pool.size).toBe(1);
    const c = pooled.client();
    await signIn(pooled, c, 'pooled@example.com');
    const csrf = /id="csrf" value="([^"]+)"/.exec((await c.get('/verify')).text)![1]!;
    const cookie = [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    // Large enough that Node gives the body a buffer of its own, which the pool transfers.
    const bytes = tinyJpeg({ width: 1200, height: 900, seed: 7 });
    expect(bytes.length).toBeGreaterThan(8192);
    const r = await fetch(`${pooled.base}/verify/detect`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', cookie, 'x-csrf-token': csrf },
      body: bytes,
    });
    const body = (await r.json()) as any;
    expect(r.status).toBe(200);
    expect(body.result.media.type).toBe('image/jpeg');
    expect(body.html).toMatch(/<img class="file-thumb" src="data:image\/webp;base64,/);
    expect(logged.filter((l) => /"level":(40|50)/.test(l))).toEqual([]);
  });
});

// Issue 34, item 5: who sent a Verify body is settled from its headers before a byte of it is
// read, and a body that is read counts in the media budget like a /v1/detect body.
describe('the body is read only for the signed-in page, and counted', () => {
  const MB = 1_048_576;

  /** Sends the headers and `sent` bytes of a body declared as `declared`; resolves with what the
   * daemon answered before the client sent more, and whether it then closed the connection. */
  async function partial(headers: Record<string, string>, declared: number, sent: number) {
    const socket = connect(Number(new URL(t.base).port), '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.on('error', () => {});
    const head = Object.entries({ host: new URL(t.base).host, 'content-type': 'application/octet-stream', 'content-length': String(declared), ...headers })
      .map(([k, v]) => `${k}: ${v}\r\n`)
      .join('');
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
    const closed = new Promise<void>((r) => socket.once('close', () => r()));
    socket.write(`POST /verify/detect HTTP/1.1\r\n${head}\r\n`);
    socket.write(Buffer.alloc(sent, 1));
    // Bounded: an answer that waits for the rest of the body never comes.
    const answered = await new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => resolve(false), 3000);
      const look = () => {
        if (/\r\n\r\n[\s\S]*\}/.test(text)) {
          clearTimeout(timer);
          resolve(true);
        }
      };
      socket.on('data', look);
    });
    const closedSoon = await Promise.race([closed.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 3000))]);
    socket.destroy();
    return { answered, status: Number(/^HTTP\/1\.1 (\d+)/.exec(text)?.[1]), text, closed: closedSoon };
  }

  it('without a session, a declared 25 MB body is answered 401 after 64 KB of it, and the connection is closed', async () => {
    const r = await partial({}, 25 * MB, 64 * 1024);
    expect(r.answered).toBe(true);
    expect(r.status).toBe(401);
    expect(r.text).toMatch(/connection: close/i);
    expect(r.closed).toBe(true);
  });

  it('with a session and no CSRF token (or a wrong one), the same: 403 before the body', async () => {
    const { c, csrf } = await signedIn('unread@example.com');
    const cookie = [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    for (const token of [undefined, 'A'.repeat(43)]) {
      const r = await partial({ cookie, ...(token ? { 'x-csrf-token': token } : {}) }, 25 * MB, 64 * 1024);
      expect(r.answered).toBe(true);
      expect(r.status).toBe(403);
      expect(r.closed).toBe(true);
    }
    // Declared over the page's limit: refused from the header too.
    const big = await partial({ cookie, 'x-csrf-token': csrf }, 26 * MB, 1024);
    expect(big.status).toBe(413);
    expect(big.text).toContain('media_too_large');
    expect(await used(c)).toBe(0);
  });

  it("the page's body takes its declared length from the media budget while it is read, and gives it back", async () => {
    const budget = t.app.services.mediaBudget;
    const { c, csrf } = await signedIn('counted@example.com');
    const cookie = [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const socket = connect(Number(new URL(t.base).port), '127.0.0.1');
    await new Promise((r) => socket.once('connect', r));
    socket.on('error', () => {});
    const file = tinyJpeg({ seed: 34 });
    socket.write(
      `POST /verify/detect HTTP/1.1\r\nHost: ${new URL(t.base).host}\r\nCookie: ${cookie}\r\nX-CSRF-Token: ${csrf}\r\nContent-Type: application/octet-stream\r\nContent-Length: ${file.length}\r\n\r\n`,
    );
    socket.write(file.subarray(0, 10));
    const deadline = Date.now() + 3000;
    while (budget.inUse !== file.length && Date.now() < deadline) await new Promise((r) => setTimeout(r, 10));
    expect(budget.inUse).toBe(file.length);
    let text = '';
    socket.on('data', (d: Buffer) => (text += d.toString('latin1')));
    socket.write(file.subarray(10));
    while (!/\r\n\r\n[\s\S]*\}$/.test(text) && Date.now() < deadline + 5000) await new Promise((r) => setTimeout(r, 10));
    socket.destroy();
    expect(text).toMatch(/^HTTP\/1\.1 200/);
    expect(budget.inUse).toBe(0);
    expect(await used(c)).toBe(1);
  });
});
