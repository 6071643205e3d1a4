// https:// URLs as inputs (issue 33): `check https://...` against a real HTTPS server on
// 127.0.0.1 whose certificate a throw-away CA issued (openssl), trusted by the built CLI through
// NODE_EXTRA_CA_CERTS: the same lines as `check` of the same files, every failure a clear line,
// redirects bounded, http:// refused without a request, --incremental by ETag or Last-Modified,
// and the library's scan() and check(). No address but 127.0.0.1 is ever contacted (a failed name
// lookup is a lookup function of the test's own).
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, utimesSync, writeFileSync, statSync } from 'node:fs';
import { createServer as createHttpServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, LookupFunction } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readHttpsUrl } from '../src/engine/https-source.js';
import { APPLE_MAKER_NOTE, NOT_MEDIA, exifApp1, tinyJpeg, tinyPng } from './fixtures/make.js';
import { ROOT } from './helpers/corpus.js';
import { makeServerCertificate, startHttpsServer, type HttpsTestServer, type TlsFiles } from './helpers/https-server.js';
import { parseLines, runBin, type CliRun } from './helpers/run-cli.js';
import { makeSignedSet, type SignedSet } from './helpers/signed.js';
import { freePort } from './helpers/free-port.js';

let dir: string;
let tree: string;
let signed: SignedSet;
let tls: TlsFiles;
let https: HttpsTestServer;
/** A plain http:// server: it must never be asked anything. */
let plain: Server;
let plainOrigin: string;
let plainRequests = 0;
/** Every request the HTTPS server got: method and path. */
const requests: { method: string; path: string }[] = [];
const names: string[] = [];

const etagOf = (bytes: Uint8Array) => `"${createHash('sha256').update(bytes).digest('hex').slice(0, 16)}"`;

/**
 * The server's routes:
 * /files/NAME    the file in `tree`, with its ETag and length; If-Match honoured (412)
 * /lm/NAME       the same without an ETag: Last-Modified (the file's mtime) and If-Unmodified-Since
 * /nohead/NAME   HEAD answered 405 (as a signed URL for GET only); GET serves the file
 * /auth/NAME     the file for Basic user:pw only, else 401
 * /chunked/NAME  the file with no length, ETag or date
 * /status/N      HTTP N
 * /hop/N         N + 1 redirects (relative Locations), then /files/a.jpg
 * /to-http       a redirect to the plain server
 * /short         50,000 bytes promised, 100 sent, then the connection dropped
 * /huge          3,000,000,000 bytes promised, none sent
 * /stall         headers never sent
 * /rewritten     HEAD names ETag "v1"; GET has only "v2" (written again in between): If-Match "v1" gets 412
 */
function route(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'https://127.0.0.1');
  const path = url.pathname;
  const method = req.method ?? 'GET';
  requests.push({ method, path });
  const serveFile = (name: string, headers: (bytes: Buffer, mtime: Date) => Record<string, string>) => {
    let bytes: Buffer;
    let mtime: Date;
    try {
      bytes = readFileSync(join(tree, name));
      mtime = statSync(join(tree, name)).mtime;
    } catch {
      res.writeHead(404).end();
      return;
    }
    const h = headers(bytes, mtime);
    if (req.headers['if-match'] !== undefined && req.headers['if-match'] !== h.etag) return void res.writeHead(412).end();
    const since = req.headers['if-unmodified-since'];
    if (since !== undefined && Math.floor(mtime.getTime() / 1000) > Math.floor(Date.parse(since) / 1000)) return void res.writeHead(412).end();
    res.writeHead(200, { 'content-type': 'application/octet-stream', ...h });
    res.end(method === 'HEAD' ? undefined : bytes);
  };
  let m: RegExpExecArray | null;
  if ((m = /^\/files\/(.+)$/.exec(path))) return serveFile(m[1]!, (b) => ({ etag: etagOf(b), 'content-length': String(b.length) }));
  if ((m = /^\/lm\/(.+)$/.exec(path))) return serveFile(m[1]!, (b, t) => ({ 'last-modified': t.toUTCString(), 'content-length': String(b.length) }));
  if ((m = /^\/nohead\/(.+)$/.exec(path))) {
    if (method === 'HEAD') return void res.writeHead(405).end();
    return serveFile(m[1]!, (b) => ({ 'content-length': String(b.length) }));
  }
  if ((m = /^\/auth\/(.+)$/.exec(path))) {
    if (req.headers.authorization !== `Basic ${Buffer.from('user:pw').toString('base64')}`) return void res.writeHead(401).end();
    return serveFile(m[1]!, (b) => ({ etag: etagOf(b), 'content-length': String(b.length) }));
  }
  if ((m = /^\/chunked\/(.+)$/.exec(path))) {
    const bytes = readFileSync(join(tree, m[1]!));
    res.writeHead(200, { 'transfer-encoding': 'chunked' });
    res.write(bytes.subarray(0, 10));
    res.end(method === 'HEAD' ? undefined : bytes.subarray(10));
    return;
  }
  if ((m = /^\/status\/(\d+)$/.exec(path))) return void res.writeHead(Number(m[1])).end();
  if ((m = /^\/hop\/(\d+)$/.exec(path))) {
    const n = Number(m[1]);
    return void res.writeHead(302, { location: n > 0 ? `${n - 1}` : '/files/a.jpg' }).end();
  }
  if (path === '/to-http') return void res.writeHead(301, { location: `${plainOrigin}/files/a.jpg` }).end();
  if (path === '/short') {
    res.writeHead(200, { 'content-length': '50000' });
    if (method === 'HEAD') return void res.end();
    res.write(Buffer.alloc(100, 0xff));
    setTimeout(() => res.socket?.destroy(), 20);
    return;
  }
  if (path === '/huge') {
    res.writeHead(200, { 'content-length': '3000000000' });
    if (method === 'HEAD') return void res.end();
    res.flushHeaders();
    setTimeout(() => res.socket?.destroy(), 2000);
    return;
  }
  if (path === '/stall') return; // never answered; the server's stop closes it
  if (path === '/rewritten') {
    const bytes = readFileSync(join(tree, 'a.jpg'));
    if (method === 'HEAD') return void res.writeHead(200, { etag: '"v1"', 'content-length': String(bytes.length) }).end();
    if (req.headers['if-match'] !== undefined && req.headers['if-match'] !== '"v2"') return void res.writeHead(412).end();
    return void res.writeHead(200, { etag: '"v2"', 'content-length': String(bytes.length) }).end(bytes);
  }
  res.writeHead(404).end();
}

/** The built CLI, trusting the test CA (and nothing else set about it). */
function cli(args: string[], options: { env?: NodeJS.ProcessEnv; stdin?: Uint8Array; trust?: boolean } = {}): Promise<CliRun> {
  return runBin(args, { stdin: options.stdin, env: { NODE_EXTRA_CA_CERTS: options.trust === false ? undefined : tls.caFile, ...options.env } });
}

const strip = (lines: any[]) => lines.map(({ id: _i, duration_ms: _d, ...rest }) => rest);
const sourceless = (lines: any[]) => strip(lines).map(({ source: _s, ...rest }) => rest);

beforeAll(async () => {
  signed = await makeSignedSet();
  dir = mkdtempSync(join(tmpdir(), 'prov-https-'));
  tree = join(dir, 'tree');
  mkdirSync(tree);
  // The mix of the folder scans' tests: signed, camera and plain pictures, and a text file.
  writeFileSync(join(tree, 'a.jpg'), tinyJpeg({ seed: 11 }));
  writeFileSync(join(tree, 'signed.jpg'), signed.jpeg);
  writeFileSync(join(tree, 'signed.png'), signed.png);
  for (let i = 0; i < 8; i++) {
    const bytes = i % 3 === 1 ? tinyPng({ seed: i }) : tinyJpeg({ seed: i, exif: i % 2 ? exifApp1({ make: 'Apple', makerNote: APPLE_MAKER_NOTE }) : undefined });
    writeFileSync(join(tree, `f${i}.${i % 3 === 1 ? 'png' : 'jpg'}`), bytes);
  }
  writeFileSync(join(tree, 'notes.txt'), NOT_MEDIA);
  // Modified well before any scan starts (the racy-time rule of the scan cache).
  const past = new Date(Date.now() - 3_600_000);
  for (const name of readdirSync(tree).sort()) {
    utimesSync(join(tree, name), past, past);
    names.push(name);
  }
  const pki = join(dir, 'pki');
  mkdirSync(pki);
  tls = makeServerCertificate(pki);
  https = await startHttpsServer(tls, route);
  plain = createHttpServer((_req, res) => {
    plainRequests++;
    res.writeHead(200).end('plain');
  });
  await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
  plainOrigin = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
}, 120_000);

afterAll(async () => {
  await https?.stop();
  await new Promise((r) => plain?.close(r));
  rmSync(dir, { recursive: true, force: true });
  signed?.cleanup();
});

describe('check https://...', () => {
  it('writes the lines `check` writes for the same files, sources aside (on the worker pool)', async () => {
    const urls = names.map((n) => `${https.origin}/files/${n}`);
    const fromHttps = await cli(['check', '--json', '--concurrency', '2', ...urls]);
    const fromFiles = await cli(['check', '--json', '--concurrency', '2', ...names.map((n) => join(tree, n))]);
    expect(fromHttps.stderr).toBe('');
    expect(fromHttps.code).toBe(0);
    const lines = parseLines(fromHttps.stdout);
    expect(lines.map((l) => l.source)).toEqual(urls);
    expect(sourceless(lines)).toEqual(sourceless(parseLines(fromFiles.stdout)));
    // Something real was found: a C2PA manifest (the server's content-type, octet-stream, plays no part).
    expect(lines.find((l) => l.source.endsWith('/signed.jpg')).matches.find((m: any) => m.check === 'c2pa').result).toBe('found');
    expect(lines.find((l) => l.source.endsWith('/signed.png')).media.type).toBe('image/png');
  });

  it('checks one URL named alone in this thread, as a named file; a server that refuses HEAD, and Basic credentials, alike', async () => {
    for (const path of ['files', 'nohead', 'chunked']) {
      const url = `${https.origin}/${path}/signed.jpg`;
      const run = await cli(['check', '--json', url]);
      expect(run.code, run.stderr).toBe(0);
      const [line] = parseLines(run.stdout);
      expect(line.source).toBe(url);
      expect(sourceless([line])).toEqual(sourceless(parseLines((await cli(['check', '--json', join(tree, 'signed.jpg')])).stdout)));
    }
  });

  it('shows a URL with its user name, password and secret-looking parameters masked, and sends the credentials', async () => {
    const url = `https://user:pw@127.0.0.1:${new URL(https.origin).port}/auth/f0.jpg?token=tok-SECRET-1&X-Amz-Signature=sig-SECRET-2&size=large`;
    const run = await cli(['check', '--json', url, `${https.origin}/auth/f0.jpg`]);
    expect(run.code).toBe(1);
    const [ok, refused] = parseLines(run.stdout);
    expect(ok.source).toBe(`https://***:***@127.0.0.1:${new URL(https.origin).port}/auth/f0.jpg?token=***&X-Amz-Signature=***&size=large`);
    expect(ok.error).toBeUndefined();
    expect(refused.error).toEqual({ type: 'permission_denied', message: `${https.origin}/auth/f0.jpg: the server answered HTTP 401: access refused.` });
    expect(run.stdout + run.stderr).not.toMatch(/SECRET|:pw@/);
  });

  it('--html: the page\'s title and "Inputs:" line mask a URL\'s secrets as its row does (issue 40)', async () => {
    const port = new URL(https.origin).port;
    const url = `https://user:pw@127.0.0.1:${port}/auth/f0.jpg?token=tok-SECRET-1&X-Amz-Signature=sig-SECRET-2&size=large`;
    const report = join(dir, 'masked-report.html');
    const run = await cli(['check', '--quiet', '--html', report, url]);
    expect(run.code, run.stderr).toBe(0);
    const page = readFileSync(report, 'utf8');
    const shown = `https://***:***@127.0.0.1:${port}/auth/f0.jpg?token=***&amp;X-Amz-Signature=***&amp;size=large`;
    expect(/<title>([^<]*)<\/title>/.exec(page)?.[1]).toBe(`Provenance report: ${shown}`);
    expect(page).toContain(`Inputs: ${shown} · checked on this machine`);
    expect(page).not.toMatch(/SECRET|user:pw|:pw@/);
  });

  it('follows up to 5 redirects (https:// only), and no more', async () => {
    const five = await cli(['check', '--json', `${https.origin}/hop/4`]);
    expect(five.code, five.stdout).toBe(0);
    expect(sourceless(parseLines(five.stdout))).toEqual(sourceless(parseLines((await cli(['check', '--json', join(tree, 'a.jpg')])).stdout)));
    const before = plainRequests;
    const run = await cli(['check', '--json', `${https.origin}/hop/5`, `${https.origin}/to-http`]);
    expect(run.code).toBe(1);
    expect(parseLines(run.stdout)).toEqual([
      { source: `${https.origin}/hop/5`, error: { type: 'read_error', message: `${https.origin}/hop/5: redirected more than 5 times; not followed further.` } },
      {
        source: `${https.origin}/to-http`,
        error: { type: 'read_error', message: `${https.origin}/to-http: redirected to ${plainOrigin}/files/a.jpg, which is not https://; not followed (only https:// is read).` },
      },
    ]);
    expect(plainRequests).toBe(before);
  });
});

describe('bad https:// inputs', () => {
  it("a refused connection to the default port names the host alone, as docs/CLI.md's table shows it (issue 40)", async () => {
    // 127.0.0.1:443: nothing listens there on a test machine (a test cannot bind below 1024).
    const run = await cli(['check', '--json', 'https://127.0.0.1/x.jpg']);
    expect(run.code).toBe(1);
    const [line] = parseLines(run.stdout);
    expect(line.error).toEqual({ type: 'read_error', message: 'https://127.0.0.1/x.jpg: 127.0.0.1 refused the connection (ECONNREFUSED).' });
    const row = readFileSync(join(ROOT, 'docs', 'CLI.md'), 'utf8').split('\n').find((l) => l.includes('| connection refused |'))!;
    const shown = /\| `read_error` \| `([^`]+)`/.exec(row)![1]!;
    expect(line.error.message.endsWith(shown.replace('example.org', '127.0.0.1'))).toBe(true);
  });

  it('each failure is its own line with a clear message, exit 1, and the rest is checked', async () => {
    const closed = `https://127.0.0.1:${await freePort()}`;
    const o = https.origin;
    const inputs = [`${o}/status/404`, `${o}/status/503`, `${o}/status/403`, `${closed}/x.jpg`, `${o}/short`, `${o}/huge`, `${o}/files/a.jpg`];
    // The pool (several inputs) and this thread (--concurrency 1) say the same.
    for (const concurrency of ['2', '1']) {
      const run = await cli(['check', '--json', '--concurrency', concurrency, ...inputs]);
      expect(run.code).toBe(1);
      const lines = parseLines(run.stdout);
      expect(lines.map((l) => l.source)).toEqual(inputs);
      expect(lines.slice(0, 6).map((l) => l.error)).toEqual([
        { type: 'not_found', message: `${o}/status/404: the server answered HTTP 404: no such file there.` },
        { type: 'read_error', message: `${o}/status/503: the server answered HTTP 503: a server error.` },
        { type: 'permission_denied', message: `${o}/status/403: the server answered HTTP 403: access refused.` },
        { type: 'read_error', message: `${closed}/x.jpg: ${closed.slice('https://'.length)} refused the connection (ECONNREFUSED).` },
        { type: 'read_error', message: `${o}/short: the read broke off after 100 of 50,000 bytes (the server closed the connection, UND_ERR_SOCKET).` },
        { type: 'file_too_large', message: `${o}/huge: the object is 2 GiB or larger; a check reads objects smaller than 2 GiB.` },
      ]);
      expect(lines[6].error).toBeUndefined();
    }
  });

  it('a URL written again between its HEAD and its GET: the GET asks for the version HEAD named (If-Match), and says it changed', async () => {
    const run = await cli(['check', '--json', `${https.origin}/rewritten`, `${https.origin}/files/a.jpg`]);
    expect(run.code).toBe(1);
    expect(parseLines(run.stdout)[0]).toEqual({
      source: `${https.origin}/rewritten`,
      error: { type: 'read_error', message: `${https.origin}/rewritten: changed while the scan ran (the server no longer has the version its HEAD answer named); check it again.` },
    });
  });

  it('a certificate no CA in use vouches for: a TLS read_error saying how to trust a private CA', async () => {
    const run = await cli(['check', '--json', `${https.origin}/files/a.jpg`], { trust: false });
    expect(run.code).toBe(1);
    const [line] = parseLines(run.stdout);
    expect(line.error.type).toBe('read_error');
    expect(line.error.message).toMatch(/^https:\/\/127\.0\.0\.1:\d+\/files\/a\.jpg: TLS with 127\.0\.0\.1:\d+ failed: .*certificate.*; the server's certificate is checked against Node's CAs \(NODE_EXTRA_CA_CERTS adds a private CA\) \(UNABLE_TO_VERIFY_LEAF_SIGNATURE\)\.$/);
  });

  it('http:// is refused without a request: a usage error (exit 2) on the command line, its own line in a list', async () => {
    const url = `${plainOrigin}/files/a.jpg`;
    const run = await cli(['check', '--json', url]);
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(`provenance: ${url}: not read: only https:// URLs are checked on this machine (over http:// anyone on the way could change the bytes checked); give its https:// address.\n`);
    const listed = await cli(['check', '--json', '--files-from', '-'], { stdin: Buffer.from(`${url}\n${join(tree, 'a.jpg')}\n`) });
    expect(listed.code).toBe(1);
    const [refused, file] = parseLines(listed.stdout);
    expect(refused).toEqual({ source: url, error: { type: 'read_error', message: run.stderr.slice('provenance: '.length, -1) } });
    expect(file.error).toBeUndefined();
    expect(plainRequests).toBe(0);
  });

  it('a malformed https:// URL is a usage error too', async () => {
    const run = await cli(['check', 'https://']);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('provenance: https://: not a valid https:// URL.\n');
  });
});

describe('in this thread (engine/https-source.ts)', () => {
  it('a host name that does not resolve, an answer that never comes, a body past the limit', async () => {
    // A lookup of the test's own: no name server is asked.
    const nowhere = ((_host: string, _options: unknown, callback: (err: Error) => void) =>
      callback(Object.assign(new Error('getaddrinfo ENOTFOUND nowhere.test'), { code: 'ENOTFOUND' }))) as unknown as LookupFunction;
    await expect(readHttpsUrl('https://nowhere.test/a.jpg', { lookup: nowhere })).rejects.toMatchObject({
      name: 'InputError',
      type: 'read_error',
      message: 'https://nowhere.test/a.jpg: cannot resolve the host name nowhere.test (ENOTFOUND).',
    });
    await expect(readHttpsUrl(`${https.origin}/stall`, { ca: tls.caPem, idleTimeoutMs: 300 })).rejects.toMatchObject({
      type: 'read_error',
      message: `${https.origin}/stall: 127.0.0.1:${new URL(https.origin).port} sent no answer within 0.3 seconds (UND_ERR_HEADERS_TIMEOUT).`,
    });
    // No Content-Length: refused while it streams.
    const size = readFileSync(join(tree, 'signed.jpg')).length;
    await expect(readHttpsUrl(`${https.origin}/chunked/signed.jpg`, { ca: tls.caPem, maxBytes: 1000 })).rejects.toMatchObject({ type: 'file_too_large' });
    expect(size).toBeGreaterThan(1000);
    expect(Buffer.from(await readHttpsUrl(`${https.origin}/chunked/signed.jpg`, { ca: tls.caPem }))).toEqual(readFileSync(join(tree, 'signed.jpg')));
  });
});

describe('check --incremental https://...', () => {
  const runs = (prefix: string) => async () => {
    const started = requests.length;
    const r = await cli(['check', '--json', '--summary', '--incremental', '--concurrency', '2', ...['f0.jpg', 'f1.png', 'f2.jpg'].map((n) => `${https.origin}/${prefix}/${n}`)], {
      env: { PROVENANCE_CACHE_DIR: join(dir, `cache-${prefix}`) },
    });
    expect(r.code, r.stderr).toBe(0);
    const gets = requests.slice(started).filter((q) => q.method === 'GET').map((q) => q.path);
    return { lines: parseLines(r.stdout), summary: JSON.parse(r.stderr.trim().split('\n').at(-1)!), gets };
  };

  for (const prefix of ['files', 'lm']) {
    it(`${prefix === 'files' ? 'by ETag' : 'by Last-Modified and size'}: an unchanged URL is not read again, a changed one is`, async () => {
      const run = runs(prefix);
      const first = await run();
      expect(first.summary).toMatchObject({ checked: 3, from_cache: 0 });
      expect(first.gets).toHaveLength(3);
      const second = await run();
      expect(second.summary).toMatchObject({ checked: 3, from_cache: 3 });
      expect(second.gets).toEqual([]);
      expect(strip(second.lines)).toEqual(strip(first.lines));
      const file = join(tree, 'f1.png');
      const original = readFileSync(file);
      try {
        writeFileSync(file, tinyPng({ seed: 4242 }));
        const past = new Date(Date.now() - 60_000);
        utimesSync(file, past, past);
        const third = await run();
        expect(third.summary).toMatchObject({ checked: 3, from_cache: 2 });
        expect(third.gets).toEqual([`/${prefix}/f1.png`]);
        expect(third.lines[1].media.sha256).not.toBe(first.lines[1].media.sha256);
      } finally {
        writeFileSync(file, original);
        const past = new Date(Date.now() - 3_600_000);
        utimesSync(file, past, past);
      }
    });
  }
});

describe('the library (dist/, in a process that trusts the test CA)', () => {
  it('scan() of URLs yields what scan() of the files does; check() reads one URL, or throws InputError', async () => {
    const urls = names.map((n) => `${https.origin}/files/${n}`);
    const script = `
      import { scan, check } from ${JSON.stringify(join(ROOT, 'dist', 'index.js'))};
      const strip = ({ id, duration_ms, ...rest }) => rest;
      const collect = async (inputs) => { const out = []; for await (const e of scan(inputs, { concurrency: 2 })) out.push(e.ok ? strip(e.result) : e.error); return out; };
      const failure = (p) => p.then(() => 'resolved', (e) => ({ name: e.name, type: e.type, message: e.message }));
      console.log(JSON.stringify({
        fromUrls: await collect(${JSON.stringify(urls)}),
        fromFiles: await collect(${JSON.stringify(names.map((n) => join(tree, n)))}),
        one: strip(await check(${JSON.stringify(urls[0])})),
        oneUrlObject: strip(await check(new URL(${JSON.stringify(urls[0])}))),
        oneFile: strip(await check(${JSON.stringify(join(tree, names[0]!))})),
        missing: await failure(check(${JSON.stringify(`${https.origin}/status/404`)})),
        plain: await failure(check(${JSON.stringify(`${plainOrigin}/x.jpg`)})),
      }));`;
    // A file, not `--input-type=module -e`: the pool's workers inherit the flags, and that one
    // stops a worker that has no string to evaluate.
    const file = join(dir, 'library-run.mjs');
    writeFileSync(file, script);
    const out = await new Promise<string>((resolve, reject) => {
      const child = spawn(process.execPath, [file], { env: { ...process.env, NODE_EXTRA_CA_CERTS: tls.caFile } });
      const chunks: Buffer[] = [];
      const errors: Buffer[] = [];
      child.stdout.on('data', (c: Buffer) => chunks.push(c));
      child.stderr.on('data', (c: Buffer) => errors.push(c));
      child.on('error', reject);
      child.on('close', (code) => (code === 0 ? resolve(Buffer.concat(chunks).toString()) : reject(new Error(`exit ${code}: ${Buffer.concat(errors)}${Buffer.concat(chunks)}`))));
    });
    const got = JSON.parse(out);
    expect(got.fromUrls).toEqual(got.fromFiles);
    expect(got.fromUrls).toHaveLength(names.length);
    expect(got.one).toEqual(got.oneFile);
    expect(got.oneUrlObject).toEqual(got.oneFile);
    expect(got.missing).toEqual({ name: 'InputError', type: 'not_found', message: `${https.origin}/status/404: the server answered HTTP 404: no such file there.` });
    expect(got.plain.type).toBe('read_error');
    expect(got.plain.message).toMatch(/only https:\/\/ URLs are checked/);
    expect(plainRequests).toBe(0);
  });
});
