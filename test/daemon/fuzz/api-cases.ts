// Requests to the /v1 API, generated from the daemon's OpenAPI document: its operations (and a
// few undocumented routes), keys good and bad, every kind of broken JSON, base64 and multipart.
import fc from 'fast-check';
import { newKeyValue } from '../../../src/daemon/accounts/key-format.js';
import { tinyJpeg } from '../../fixtures/make.js';
import { applyCoding, coding, framing, headerNoise, type Case } from './cases.js';

export interface Operation {
  method: string;
  path: string;
  statuses: number[];
}

/** The operations of the document, each with the statuses its responses list. */
export function operationsOf(doc: { paths: Record<string, Record<string, { responses?: Record<string, unknown> }>> }): Operation[] {
  const operations: Operation[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    for (const [method, op] of Object.entries(ops)) {
      // Numbered statuses only: a range such as 4XX allows no particular status here.
      const statuses = Object.keys(op.responses ?? {}).filter((s) => /^\d{3}$/.test(s)).map(Number);
      operations.push({ method: method.toUpperCase(), path, statuses });
    }
  }
  return operations;
}

const KEYED = new Set(['POST /v1/detect', 'POST /v1/uploads']);

export function apiCases(operations: Operation[], keys: string[]): fc.Arbitrary<Case> {
  const jpegB64 = Buffer.from(tinyJpeg()).toString('base64');
  const route = fc.oneof(
    { weight: 12, arbitrary: fc.constantFrom(...operations.map((o) => ({ ...o, unknown: false }))) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Operation & { unknown: boolean }>(
        { method: 'DELETE', path: '/v1/detect', statuses: [404], unknown: true },
        { method: 'GET', path: '/v1/nope', statuses: [404], unknown: true },
        { method: 'POST', path: '/v1/detectors', statuses: [404], unknown: true },
      ),
    },
  );
  const auth = fc.oneof(
    { weight: 6, arbitrary: fc.nat(keys.length - 1).map((i) => ({ header: `Bearer ${keys[i]}`, valid: true as boolean | undefined, key: keys[i] })) },
    { weight: 1, arbitrary: fc.constant({ header: undefined, valid: false as boolean | undefined, key: undefined }) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        { header: 'Bearer prv_short', valid: false, key: undefined },
        { header: `Bearer ${newKeyValue()}`, valid: false, key: undefined },
        { header: 'Basic dXNlcjpwYXNz', valid: false, key: undefined },
        { header: 'Bearer', valid: false, key: undefined },
        // Whether the daemon takes a lower-case scheme and padding is not what this checks.
        { header: `bearer   ${keys[0]}   `, valid: undefined, key: keys[0] },
      ),
    },
  );
  const contentType = fc.oneof(
    { weight: 6, arbitrary: fc.constant('application/json') },
    { weight: 3, arbitrary: fc.constant('multipart/form-data; boundary=FUZZ') },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        undefined,
        'application/json; charset=utf-8',
        'multipart/form-data',
        'multipart/form-data; boundary=',
        'multipart/form-data; boundary=OTHER',
        'text/plain',
        'application/octet-stream',
        'application/x-www-form-urlencoded',
        'image/jpeg',
        '*/*; ;;',
      ),
    },
    { weight: 1, arbitrary: fc.string({ maxLength: 40 }).filter((s) => !/[\r\n]/.test(s)) },
  );
  const base64 = fc.oneof(
    fc.constant(jpegB64),
    fc.constant(''),
    fc.constantFrom('AAA=A', '====', 'QUJD\nREVG', ' QUJD ', 'QUJ', 'Q', 'QU JD', 'QUJD\u0000', '!!!!', `${jpegB64}=`, jpegB64.replace(/=+$/, ''), `${jpegB64.slice(0, 40)}\t${jpegB64.slice(40)}`),
    fc.base64String({ maxLength: 400 }),
    fc.nat(6).map((k) => 'A'.repeat([0, 1, 4, 1_000, 100_000, 5_600_000, 6_000_000][k]!)),
  );
  const checks = fc.oneof(fc.constant(undefined), fc.array(fc.constantFrom('c2pa', 'camera_reference', 'watermark_a', 'nope', '', 'C2PA'), { maxLength: 4 }), fc.jsonValue());
  const jsonBody = fc.oneof(
    { weight: 4, arbitrary: fc.record({ media: base64, checks }, { requiredKeys: ['media'] }).map((o) => Buffer.from(JSON.stringify(o))) },
    { weight: 1, arbitrary: fc.record({ url: fc.oneof(fc.webUrl(), fc.string(), fc.constantFrom('http://user@host/', 'http://127.0.0.1/', 'file:///etc/passwd', 'http://[::1]/', 'http://8.8.8.8/x.jpg')), checks }).map((o) => Buffer.from(JSON.stringify(o))) },
    { weight: 1, arbitrary: fc.record({ upload: fc.oneof(fc.string(), fc.constant('upl_nope')) }).map((o) => Buffer.from(JSON.stringify(o))) },
    { weight: 2, arbitrary: fc.jsonValue().map((v) => Buffer.from(JSON.stringify(v) ?? 'null')) },
    { weight: 1, arbitrary: fc.record({ media: fc.jsonValue(), url: fc.jsonValue(), upload: fc.jsonValue() }, { requiredKeys: [] }).map((o) => Buffer.from(JSON.stringify(o))) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        Buffer.from(`${'['.repeat(10_000)}${']'.repeat(10_000)}`),
        Buffer.from(`${'{"a":'.repeat(10_000)}1${'}'.repeat(10_000)}`),
        Buffer.from(`{"media":"${'{'.repeat(10_000)}"}`),
        Buffer.from(`{"media":"QUJD","media":"${jpegB64}"}`),
        Buffer.from(`{"media":"${jpegB64}","checks":["c2pa"],"checks":["camera_reference"]}`),
        Buffer.concat([Buffer.from('{"media":"QU'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('JD"}')]),
        Buffer.from('{"media":"QU\u0000JD"}'),
        Buffer.from([0x7b, 0x22, 0x6d, 0x00, 0x22, 0x3a, 0x31, 0x7d]),
        Buffer.from(''),
        Buffer.from('{"media":'),
        Buffer.from('null'),
        Buffer.from('"just a string"'),
        Buffer.from('{"__proto__":{"media":"QUJD"}}'),
      ),
    },
  );
  const part = (name: string | undefined, content: Buffer, filename?: string) =>
    Buffer.concat([
      Buffer.from(`--FUZZ\r\nContent-Disposition: form-data${name === undefined ? '' : `; name="${name}"`}${filename ? `; filename="${filename}"` : ''}\r\n${filename ? 'Content-Type: image/jpeg\r\n' : ''}\r\n`),
      content,
      Buffer.from('\r\n'),
    ]);
  const fileBytes = fc.oneof(
    { weight: 4, arbitrary: fc.constant(Buffer.from(tinyJpeg())) },
    { weight: 2, arbitrary: fc.constant(Buffer.alloc(0)) },
    { weight: 3, arbitrary: fc.uint8Array({ maxLength: 300 }).map((a) => Buffer.from(a)) },
    { weight: 1, arbitrary: fc.constant(Buffer.alloc(4 * 1_048_576 + 10, 0x41)) },
  );
  const multipartBody = fc
    .record({
      parts: fc.array(
        fc.oneof(
          fileBytes.map((b) => part('file', b, 'a.jpg')),
          fc.constantFrom('c2pa', 'nope', '', 'c2pa,c2pa').map((c) => part('checks', Buffer.from(c))),
          fc.string({ maxLength: 20 }).map((v) => part('extra', Buffer.from(v))),
          fileBytes.map((b) => part(undefined, b, 'nameless.jpg')),
          fc.constant(part('media', Buffer.from(jpegB64))),
        ),
        { maxLength: 4 },
      ),
      close: fc.constantFrom('--FUZZ--\r\n', '', '--FUZZ', '--WRONG--\r\n'),
    })
    .map(({ parts, close }) => Buffer.concat([...parts, Buffer.from(close)]));

  return fc
    .record({ route, auth, contentType, coding, json: jsonBody, multipart: multipartBody, noise: headerNoise, framing })
    .map(({ route: r, auth: a, contentType: ct, coding: c, json, multipart, noise, framing: f }): Case => {
      let body = ct?.startsWith('multipart/') ? multipart : json;
      if (r.path === '/v1/uploads' && ct === 'application/octet-stream') body = json.length % 2 ? Buffer.from(tinyJpeg()) : json;
      const coded = applyCoding(body, c);
      const headers: [string, string][] = [...noise.headers];
      if (a.header !== undefined) headers.push(['Authorization', a.header]);
      if (ct !== undefined) headers.push(['Content-Type', ct]);
      headers.push(...coded.header);
      const name = `${r.method} ${r.path}`;
      return {
        family: 'api',
        route: name,
        method: r.method,
        path: r.path,
        headers,
        body: coded.body,
        // A GET carries no body: Node answers it without reading one, and a body still unread
        // when the server closes makes the kernel reset the connection, losing the answer.
        framing: r.method === 'GET' ? 'none' : f,
        statuses: r.statuses,
        unknown: r.unknown,
        mutating: name === 'POST /v1/uploads',
        admitted: KEYED.has(name) ? a.valid : true,
        coding: c.coding,
        oversized: noise.oversized,
        key: a.key,
      };
    });
}
