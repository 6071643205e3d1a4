// Requests as bytes on a socket of their own, and answers read back: the fuzz suite writes
// what no HTTP client library would send (lying lengths, broken chunks, 1,000 headers).
import { connect } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';

export interface Answer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export type Framing = 'length' | 'length-short' | 'length-long' | 'chunked' | 'chunked-lying' | 'none';

export interface Req {
  method: string;
  /** The request target, query string included, as sent. */
  path: string;
  headers: [string, string][];
  body: Buffer;
  /** How the body is framed: honest Content-Length, a lying one, chunked, or lying chunks. */
  framing: Framing;
}

export function encode(req: Req): Buffer {
  const head = [`${req.method} ${req.path} HTTP/1.1`, 'Host: 127.0.0.1', 'Connection: close'];
  for (const [k, v] of req.headers) head.push(`${k}: ${v}`);
  let body = req.body;
  switch (req.framing) {
    case 'length':
      head.push(`Content-Length: ${body.length}`);
      break;
    case 'length-short':
      head.push(`Content-Length: ${Math.max(0, body.length - 7)}`);
      break;
    case 'length-long':
      head.push(`Content-Length: ${body.length + 1000}`);
      break;
    case 'chunked':
      head.push('Transfer-Encoding: chunked');
      body = Buffer.concat([Buffer.from(`${body.length.toString(16)}\r\n`), body, Buffer.from('\r\n0\r\n\r\n')]);
      break;
    case 'chunked-lying':
      head.push('Transfer-Encoding: chunked');
      body = Buffer.concat([Buffer.from(`${(body.length + 5).toString(16)}\r\n`), body, Buffer.from('\r\nzz\r\n0\r\n\r\n')]);
      break;
    case 'none':
      body = Buffer.alloc(0);
      break;
  }
  return Buffer.concat([Buffer.from(`${head.join('\r\n')}\r\n\r\n`, 'latin1'), body]);
}

/** Whether the request as framed says it carries a body (what the daemon's coding check looks at). */
export function declaresBody(req: Req): boolean {
  switch (req.framing) {
    case 'chunked':
    case 'chunked-lying':
    case 'length-long':
      return true;
    case 'length':
      return req.body.length > 0;
    case 'length-short':
      return req.body.length - 7 > 0;
    case 'none':
      return false;
  }
}

/** A client that lied about its length stops sending (FIN), so the server sees the end. */
export const hangsUp = (req: Req) => req.framing === 'length-long' || req.framing === 'chunked-lying';

/**
 * Content codings as the fuzz sends them: the body really encoded as its header says (codings
 * listed in the order they were applied), or, for `lying`, left as it was.
 */
export const CODINGS = ['gzip', 'deflate', 'br', 'x-unknown', 'identity', 'GZIP, deflate'] as const;
export type Coding = (typeof CODINGS)[number];

export function encodeBody(body: Buffer, coding: Coding | undefined): Buffer {
  switch (coding) {
    case 'gzip':
      return gzipSync(body);
    case 'deflate':
      // HTTP's "deflate" is the zlib format (RFC 9110 §8.4.1.2), which deflateSync writes.
      return deflateSync(body);
    case 'br':
      return brotliCompressSync(body);
    case 'GZIP, deflate':
      return deflateSync(gzipSync(body));
    default:
      return body;
  }
}

/** A coding the daemon must refuse when a body comes with it (anything but identity). */
export const isRealCoding = (coding: string | undefined) => coding !== undefined && !['', 'identity'].includes(coding.trim().toLowerCase());

/** One request on its own connection; resolves with the first answer, or undefined if none came. */
export function send(port: number, bytes: Buffer, hangUp = false): Promise<Answer | undefined> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    const chunks: Buffer[] = [];
    // Generous: the suite runs this beside every other test file on two cores. An answer that
    // does not come within it is a hang, and fails the run.
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error('no answer within 60 s'));
    }, 60_000);
    let done = false;
    const finish = () => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(parse(Buffer.concat(chunks)));
    };
    socket.on('data', (d) => {
      chunks.push(d);
      // An answer with its whole Content-Length is complete: no need to wait for the close (a
      // refused request's connection stays open up to 2 s while the daemon drains its body).
      const raw = Buffer.concat(chunks);
      const split = raw.indexOf('\r\n\r\n');
      const length = split < 0 ? undefined : /\r\ncontent-length: *(\d+)/i.exec(raw.subarray(0, split).toString('latin1'))?.[1];
      if (length !== undefined && raw.length - split - 4 >= Number(length)) finish();
    });
    socket.on('error', () => {});
    socket.on('close', finish);
    // Others send and wait, as curl does (Connection: close: the server closes after answering).
    if (hangUp) socket.end(bytes);
    else socket.write(bytes);
  });
}

export function parse(raw: Buffer): Answer | undefined {
  const split = raw.indexOf('\r\n\r\n');
  if (split < 0) return undefined;
  const lines = raw.subarray(0, split).toString('latin1').split('\r\n');
  const status = Number(lines[0]!.split(' ')[1]);
  const headers: Record<string, string> = {};
  for (const line of lines.slice(1)) {
    const i = line.indexOf(':');
    const name = line.slice(0, i).trim().toLowerCase();
    const value = line.slice(i + 1).trim();
    // Repeated headers (Set-Cookie) are kept, one per line.
    headers[name] = headers[name] === undefined ? value : `${headers[name]}\n${value}`;
  }
  let body = raw.subarray(split + 4);
  if (headers['content-length'] !== undefined) body = body.subarray(0, Number(headers['content-length']));
  else if (headers['transfer-encoding'] === 'chunked') {
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      const eol = body.indexOf('\r\n', at);
      const size = parseInt(body.subarray(at, eol).toString('latin1'), 16);
      if (!size) break;
      parts.push(body.subarray(eol + 2, eol + 2 + size));
      at = eol + 2 + size + 2;
    }
    body = Buffer.concat(parts);
  }
  return { status, headers, body: body.toString('utf8') };
}
