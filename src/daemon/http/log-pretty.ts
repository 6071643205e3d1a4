// `--log-format pretty`: the daemon's JSON log lines made into one short line each for a terminal,
// without pino-pretty (not a dependency; a transport would also run in a worker thread). The
// JSON line is still what the logger makes, redacted and scrubbed; this only rewrites it.
//   2026-11-25T20:41:07.532Z INFO  req_4bX… POST /v1/detect 200 12.41 ms acct_9f… in 2.1 KiB out 845 B
//   2026-11-25T20:41:09.010Z ERROR req_Qm1… internal error: connect ECONNREFUSED 127.0.0.1:5432
import { Writable } from 'node:stream';

const LEVELS: Record<number, string> = { 10: 'TRACE', 20: 'DEBUG', 30: 'INFO', 40: 'WARN', 50: 'ERROR', 60: 'FATAL' };
/** pino's own fields, and the request line's, which the line shows in its own places. */
const SHOWN = new Set(['level', 'time', 'pid', 'hostname', 'msg', 'reqId', 'route', 'method', 'status', 'duration_ms', 'account_id', 'bytes_in', 'bytes_out', 'err']);

function bytes(n: number): string {
  if (n < 1024) return `${n} B`;
  if (n < 1024 * 1024) return `${(n / 1024).toFixed(1)} KiB`;
  return `${(n / 1024 / 1024).toFixed(1)} MiB`;
}

/** A field's value for `key=value`: strings bare when they have no space, else JSON. */
function shown(value: unknown): string {
  if (typeof value === 'string' && /^[^\s"=]+$/.test(value)) return value;
  return JSON.stringify(value);
}

/** One JSON log line as one human-readable line (a line that is not JSON is passed on as it is). */
export function prettyLine(json: string): string {
  let entry: Record<string, unknown>;
  try {
    entry = JSON.parse(json) as Record<string, unknown>;
  } catch {
    return json.endsWith('\n') ? json : `${json}\n`;
  }
  const time = typeof entry.time === 'number' ? new Date(entry.time).toISOString() : String(entry.time ?? '');
  const level = (LEVELS[entry.level as number] ?? String(entry.level)).padEnd(5);
  const parts = [time, level];
  if (entry.reqId) parts.push(String(entry.reqId));
  if (entry.msg === 'request completed' && entry.method !== undefined) {
    parts.push(String(entry.method), String(entry.route ?? '(no route)'), String(entry.status), `${entry.duration_ms} ms`);
    if (entry.account_id) parts.push(String(entry.account_id));
    parts.push(`in ${bytes(Number(entry.bytes_in ?? 0))}`, `out ${bytes(Number(entry.bytes_out ?? 0))}`);
  } else if (entry.msg !== undefined) {
    parts.push(String(entry.msg));
  }
  const err = entry.err as { type?: string; message?: string; code?: string } | undefined;
  let line = parts.join(' ');
  if (err && typeof err === 'object') line += `: ${err.message ?? ''}${err.code ? ` (${err.code})` : ''}`;
  const rest = Object.entries(entry).filter(([key]) => !SHOWN.has(key));
  for (const [key, value] of rest) {
    // The configuration line's settings, one `name=value` each.
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      for (const [inner, v] of Object.entries(value)) line += ` ${inner}=${shown(v)}`;
    } else {
      line += ` ${key}=${shown(value)}`;
    }
  }
  return `${line}\n`;
}

/** A stream that takes the logger's JSON lines and writes them pretty to `target`. */
export function prettyLogStream(target: NodeJS.WritableStream): Writable {
  return new Writable({
    decodeStrings: false,
    write(chunk: string | Buffer, _encoding, done) {
      // pino writes one whole line per call.
      const text = typeof chunk === 'string' ? chunk : chunk.toString('utf8');
      for (const line of text.split('\n')) if (line) target.write(prettyLine(line));
      done();
    },
  });
}
