// Facts the docs state, held to the code that makes them true (issue 34: a reading of the docs
// found the detector table, the exit codes, the stop sequence, flags and limits told two or three
// times and drifting apart). Each fact has one full statement: the detectors in DETECTORS.md, the
// stop in DAEMON.md, the limits in SECURITY.md; the tables and sentences other docs keep because
// a reader needs them on the spot are held here too. Every expected value is read from the code
// (the catalogue, the commander program, the parsers, the limit constants), never copied by
// hand. The check's exit codes: test/exit-code-tables.test.ts.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, type Option } from 'commander';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOGUE } from '../src/detectors/catalogue.js';
import { HOSTED_DETECTOR_IDS } from '../src/types.js';
import { registerDaemonCommands } from '../src/commands/daemon-cli.js';
import { envNameOf } from '../src/commands/daemon-env.js';
import { DAEMON_EXIT, parseStopSeconds } from '../src/commands/daemon.js';
import { EXIT } from '../src/commands/io.js';
import { parseByteSize } from '../src/daemon/contract/byte-size.js';
import {
  DOWNLOAD_TIMEOUT_MS,
  HEADERS_TIMEOUT_MS,
  INLINE_MAX_BYTES,
  MAX_REDIRECTS,
  MB,
  REMOTE_MAX_BYTES,
  REQUEST_TIMEOUT_MS,
  SMALL_BODY,
  STORAGE_FLOOR_BYTES,
  STORAGE_FULL_RETRY_SECONDS,
  UPLOAD_BYTES_PER_ACCOUNT,
  UPLOAD_SWEEP_MS,
  UPLOAD_TTL_MS,
  UPLOADS_PER_ACCOUNT,
} from '../src/daemon/contract/limits.js';
import { DEFAULT_MEDIA_MEMORY_BYTES, DEFAULT_MEDIA_WAIT_MS, parseMediaMemory, parseMediaWait } from '../src/daemon/media/media-budget.js';
import { DEFAULT_DRAIN_DELAY_MS, DEFAULT_SHUTDOWN_GRACE_MS } from '../src/daemon/http/server.js';
import { DEFAULT_DETECT_TIMEOUT_MS } from '../src/daemon/media/detect-timeout-flag.js';
import { BORROWED_TURN_MS } from '../src/daemon/media/detect-turns.js';
import { MAX_ACTIVE_KEYS } from '../src/daemon/accounts/accounts.js';
import { PG_TIMEOUTS_MS } from '../src/daemon/store/pg-store.js';
import { limitsOf } from '../src/daemon/accounts/plans.js';
import { DEFAULT_SIGNIN_LIMITS } from '../src/daemon/web/signin-limits.js';
import { SIGNIN_LINK_TTL_MS } from '../src/daemon/web/signin-links.js';
import { SESSION_TTL_MS } from '../src/daemon/web/sessions.js';
import { DEFAULT_PIXEL_MEMORY_BYTES, MAX_DECODED_PIXELS, PIXEL_BYTES, WEBP_PIXEL_BYTES } from '../src/media/pixel-memory.js';
import { MAX_WATERMARK_PIXELS } from '../src/detectors/invisible-watermark.js';
import { MAX_FILE_BYTES_TEXT } from '../src/engine/input-error.js';
import { DEFAULT_MAX_BYTES as SCAN_CACHE_MAX_BYTES } from '../src/engine/scan-cache.js';
import { MAX_WORKERS_PER_CORE, SCAN_BATCH, WINDOW_PER_CORE } from '../src/library/scan-pool.js';
import { ROOT } from './helpers/corpus.js';
import { makeApp, workersUp, type TestApp } from './daemon/helpers.js';
import { runCli } from './helpers/run-cli.js';
import { TARGETS } from '../scripts/mutation-targets.mjs';

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const DOCS = ['README.md', 'CONTRIBUTING.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

/** The text from `heading` to the next heading of its level or above. */
function section(file: string, heading: string): string {
  const text = read(file);
  const at = text.indexOf(`\n${heading}\n`);
  expect(at, `${file}: ${heading}`).toBeGreaterThan(0);
  const level = /^#+/.exec(heading)![0].length;
  const rest = text.slice(at + heading.length + 2);
  const end = rest.search(new RegExp(`^#{1,${level}} `, 'm'));
  return end < 0 ? rest : rest.slice(0, end);
}

/** The body rows of the first markdown table in `text`, as trimmed cells. */
function tableRows(text: string): string[][] {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => l.startsWith('|'));
  expect(start, 'a table').toBeGreaterThanOrEqual(0);
  const rows: string[][] = [];
  for (const line of lines.slice(start + 2)) {
    if (!line.startsWith('|')) break;
    rows.push(line.slice(1, -1).split(' | ').map((c) => c.trim()));
  }
  return rows;
}

/** `` `a`, `b` `` -> ["a", "b"]: the ids a cell names. */
const codeSpans = (cell: string) => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]!);

// How the docs write the code's figures.
const mb = (bytes: number) => `${bytes / MB} MB`;
const gib = (bytes: number) => `${bytes / (1024 * MB)} GiB`;
const mib = (bytes: number) => `${bytes / MB} MiB`;
const seconds = (ms: number) => `${ms / 1000} s`;
const minutes = (ms: number) => `${ms / 60_000} minutes`;
const hours = (ms: number) => `${ms / 3_600_000} hours`;
const count = (n: number) => n.toLocaleString('en-US');
const side = (pixels: number) => `${count(Math.sqrt(pixels))} x ${count(Math.sqrt(pixels))}`;
const plan = (p: 'free' | 'starter' | 'growth' | 'custom') => limitsOf({ plan: p, quota: undefined } as Parameters<typeof limitsOf>[0]);
const { perAddress, perClient } = DEFAULT_SIGNIN_LIMITS;

const NUMBER_WORDS = ['zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten'];

describe('the detector tables name the catalogue', () => {
  const ids = CATALOGUE.map((d) => d.id);
  const byId = new Map<string, (typeof CATALOGUE)[number]>(CATALOGUE.map((d) => [d.id, d]));

  it("README's \"What it reads\": every detector once, the planned ones said so", () => {
    const rows = tableRows(section('README.md', '## What it reads'));
    expect(rows.flatMap(([cell]) => codeSpans(cell!)).sort()).toEqual([...ids].sort());
    for (const [cell, reads] of rows) {
      for (const id of codeSpans(cell!)) expect(reads!.startsWith('planned'), id).toBe(byId.get(id)!.status === 'planned');
    }
  });

  it("DETECTORS.md's table: every detector once, with its status", () => {
    const rows = tableRows(read('docs/DETECTORS.md'));
    expect(rows.flatMap(([cell]) => codeSpans(cell!)).sort()).toEqual([...ids].sort());
    for (const [cell, status] of rows) for (const id of codeSpans(cell!)) expect(status, id).toBe(byId.get(id)!.status);
  });

  it("API.md's GET /v1/detectors table is the served catalogue, in its order: status, media types, inverse", () => {
    const rows = tableRows(section('docs/API.md', '## GET /v1/detectors'));
    expect(rows.map(([cell]) => codeSpans(cell!)[0])).toEqual(ids);
    for (const [cell, status, types] of rows) {
      const detector = byId.get(codeSpans(cell!)[0]!)!;
      expect(status).toBe(detector.status);
      expect(types).toBe(`${detector.media_types.join(', ')}${detector.inverse ? ' (inverse)' : ''}`);
    }
  });

  it('every count of the catalogues in words is the count in the code, in the docs and the help', async () => {
    const counts: [RegExp, number][] = [
      // "the hosted service's five", "the hosted five", "Five are the hosted"
      [/hosted (?:\/v1 )?(?:service's )?(\w+)\b/gi, HOSTED_DETECTOR_IDS.length],
      [/\b(\w+) are the hosted\b/gi, HOSTED_DETECTOR_IDS.length],
      [/\bonly the (\w+)\b/gi, HOSTED_DETECTOR_IDS.length],
      // "all seven", "runs seven checks"
      [/\b(?:all|runs) (\w+)(?= checks| detectors|[,.;:)])/gi, CATALOGUE.length],
    ];
    const helps: [string, string][] = [
      ['check --help', (await runCli(['check', '--help'])).stdout],
      ['detectors --help', (await runCli(['detectors', '--help'])).stdout],
      ['daemon start --help', daemonCommand('start').helpInformation()],
    ];
    let seen = 0;
    for (const [file, raw] of [...DOCS.map((f) => [f, read(f)] as const), ...helps]) {
      const text = raw.replace(/\s+/g, ' ');
      for (const [pattern, count] of counts) {
        for (const [phrase, word] of text.matchAll(pattern)) {
          const n = NUMBER_WORDS.indexOf(word!.toLowerCase());
          if (n < 2) continue; // not a count ("the hosted one": the catalogue)
          seen++;
          expect(n, `${file}: "${phrase}"`).toBe(count);
        }
      }
    }
    expect(seen).toBeGreaterThanOrEqual(11);
  });
});

/** `provenance daemon NAME`, as the CLI defines it. */
function daemonCommand(name: string): Command {
  const program = new Command();
  registerDaemonCommands(program, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: {} }, () => {});
  return program.commands.find((c) => c.name() === 'daemon')!.commands.find((c) => c.name() === name)!;
}

/** `provenance daemon start`'s options. */
const daemonStartOptions = (): Option[] => daemonCommand('start').options.filter((o) => o.long !== '--help');

describe('daemon status', () => {
  it('--help gives the exit codes it returns', () => {
    expect(daemonCommand('status').description()).toContain(`(exit ${DAEMON_EXIT.ok}) or not (exit ${DAEMON_EXIT.notRunning})`);
  });
});

describe("daemon start's flags, as the docs list them", () => {
  const options = daemonStartOptions();
  const longs = options.map((o) => o.long!);
  const byLong = new Map(options.map((o) => [o.long!, o] as const));

  it("API.md's synopsis names every flag once", () => {
    const synopsis = /^provenance daemon start [\s\S]*?(?=^provenance daemon outbox)/m.exec(section('docs/API.md', '## Running it'))![0];
    const named = [...synopsis.matchAll(/\[(--[a-z-]+)/g)].map((m) => m[1]!);
    expect([...named].sort()).toEqual([...longs].sort());
  });

  it("DAEMON.md's variables table pairs every flag once with its variable", () => {
    const rows = tableRows(section('docs/DAEMON.md', '## Configuration and logs'));
    const flags: string[] = [];
    for (const [variables, flagCell] of rows) {
      const names = codeSpans(variables!).filter((v) => v.startsWith('PROVENANCE_') && v !== 'PROVENANCE_DATABASE_URL'); // the older name behind PROVENANCE_STORE
      const rowFlags = codeSpans(flagCell!);
      expect(names, flagCell).toEqual(rowFlags.map((f) => envNameOf(byLong.get(f)!)));
      flags.push(...rowFlags);
    }
    expect([...flags].sort()).toEqual([...longs].sort());
  });

  // The defaults written beside the commander options (daemon-cli.ts stays light: it imports
  // none of these) are the code's.
  it('the flags default to the constants the daemon uses', () => {
    const defaults = Object.fromEntries(options.map((o) => [o.long!, o.defaultValue as unknown]));
    expect(Number(defaults['--drain-delay']) * 1000).toBe(DEFAULT_DRAIN_DELAY_MS);
    expect(Number(defaults['--shutdown-grace']) * 1000).toBe(DEFAULT_SHUTDOWN_GRACE_MS);
    expect(parseMediaMemory(String(defaults['--media-memory']))).toBe(DEFAULT_MEDIA_MEMORY_BYTES);
    expect(parseMediaWait(String(defaults['--media-wait']))).toBe(DEFAULT_MEDIA_WAIT_MS);
    expect(Number(defaults['--max-uploads-per-account'])).toBe(UPLOADS_PER_ACCOUNT);
    expect(parseByteSize(String(defaults['--max-upload-bytes-per-account']))).toBe(UPLOAD_BYTES_PER_ACCOUNT);
    expect(parseByteSize(String(defaults['--storage-floor']))).toBe(STORAGE_FLOOR_BYTES);
  });

  /** A value as written in a doc or a default: bytes for a size, seconds for a duration. */
  function amount(text: string): number | undefined {
    const seconds = /^(\d+(?:\.\d+)?)(?: ?s)?$/.exec(text.trim());
    return seconds ? Number(seconds[1]) : parseByteSize(text.replace(/\s+/g, ''));
  }

  it('every default a doc gives a flag of daemon start is its default', () => {
    // "`--media-wait` (default 10 s)", "`--storage-floor SIZE`, default 1 GiB",
    // "`--drain-delay` seconds (default 5", "--drain-delay (5 s)" (the systemd unit's comment)
    const patterns = [
      /`?(--[a-z][a-z-]+)`?(?: [A-Za-z]+)?`?,? \(?default `?(\d[\d.]*(?: ?(?:[KMG]i?B|s)\b)?)/g,
      /`?(--[a-z][a-z-]+)`? \((\d+(?:\.\d+)? s)\)/g,
    ];
    let seen = 0;
    for (const file of DOCS) {
      const text = read(file).replace(/\s+/g, ' ');
      for (const pattern of patterns) {
        for (const [phrase, flag, value] of text.matchAll(pattern)) {
          const option = byLong.get(flag!);
          if (!option) continue; // another command's flag
          seen++;
          expect(amount(value!), `${file}: "${phrase}"`).toBe(amount(String(option.defaultValue)));
        }
      }
    }
    expect(seen).toBeGreaterThanOrEqual(15);
  });

  /** The range "LOW to HIGH" is what `parse` takes: both ends, and nothing past them. */
  function expectRange(parse: (text: string) => number, low: string, high: string, where: string): void {
    expect(() => parse(low), `${where}: ${low}`).not.toThrow();
    expect(() => parse(high), `${where}: ${high}`).not.toThrow();
    expect(() => parse(`${high}.5`), `${where}: past ${high}`).toThrow(RangeError);
    expect(() => parse(`-${low}`), `${where}: under ${low}`).toThrow(RangeError);
  }

  it('the bounds the docs give are the ones the flags enforce', () => {
    const api = section('docs/API.md', '## Running it').replace(/\s+/g, ' ');
    const security = read('docs/SECURITY.md');
    const stop = /`--drain-delay SECONDS` \(default \d+\) and `--shutdown-grace SECONDS` \(default \d+\), each (\d+) to (\d+):/.exec(api);
    expect(stop, 'API.md: the stop flags\' range').not.toBeNull();
    for (const flag of ['--drain-delay', '--shutdown-grace']) expectRange((text) => parseStopSeconds(flag, text), stop![1]!, stop![2]!, `API.md ${flag}`);
    for (const [where, pattern] of [
      ['API.md', /`--media-wait SECONDS` \(default \d+, (\d+) to (\d+)\)/],
      ['SECURITY.md', /`--media-wait SECONDS` \((\d+) to (\d+)\)/],
    ] as const) {
      const range = pattern.exec(where === 'API.md' ? api : security);
      expect(range, `${where}: --media-wait's range`).not.toBeNull();
      expectRange(parseMediaWait, range![1]!, range![2]!, `${where} --media-wait`);
    }
    for (const [where, text] of [
      ['API.md', api],
      ['SECURITY.md', security],
    ] as const) {
      const least = /`--media-memory SIZE` \([^)]*?at least (\d+ \w+)\)/.exec(text);
      expect(least, `${where}: --media-memory's least`).not.toBeNull();
      const bytes = parseByteSize(least![1]!.replace(' ', ''))!;
      expect(parseMediaMemory(String(bytes))).toBe(bytes);
      expect(() => parseMediaMemory(String(bytes - 1)), where).toThrow(RangeError);
    }
  });
});

describe("SECURITY.md's table of every limit is the code's", () => {
  const rows = tableRows(section('docs/SECURITY.md', '## Every limit, its default, and what a client sees past it'));

  /** Each row's limit (first cell) -> its default (second cell), from the code. */
  const expected: Record<string, string> = {
    'file sent inline (base64 JSON) or as multipart to `POST /v1/detect`': mb(INLINE_MAX_BYTES),
    'file by `url` or `upload`': mb(REMOTE_MAX_BYTES),
    'a `url` download': `${seconds(DOWNLOAD_TIMEOUT_MS)}, ${MAX_REDIRECTS} redirects, public addresses only`,
    'monthly calls per account': `free ${count(plan('free').callsPerMonth)}, starter ${count(plan('starter').callsPerMonth)}, growth ${count(plan('growth').callsPerMonth)}, custom as agreed`,
    'burst per key, sliding 60 s': `free ${plan('free').requestsPerMinute}, starter ${plan('starter').requestsPerMinute}, growth ${plan('growth').requestsPerMinute}, custom ${plan('custom').requestsPerMinute} requests`,
    'live uploads per account': `${UPLOADS_PER_ACCOUNT}`,
    'bytes of live uploads per account': gib(UPLOAD_BYTES_PER_ACCOUNT),
    "free space left on the data dir's disk by an upload": gib(STORAGE_FLOOR_BYTES),
    "an upload's life": hours(UPLOAD_TTL_MS),
    'media bytes held in memory, all requests together': mib(DEFAULT_MEDIA_MEMORY_BYTES),
    'how long a request waits for that memory': seconds(DEFAULT_MEDIA_WAIT_MS),
    "one file's checks on a worker": seconds(DEFAULT_DETECT_TIMEOUT_MS),
    "one account's detects on the workers at once": `every worker but one (at least one); an idle worker is lent for up to ${seconds(BORROWED_TURN_MS)}`,
    'request headers to arrive whole': seconds(HEADERS_TIMEOUT_MS),
    'a whole request (headers and body)': seconds(REQUEST_TIMEOUT_MS),
    "a JSON body other than detect's (admin, forms)": `${SMALL_BODY / 1024} KiB`,
    'active keys per account': `${MAX_ACTIVE_KEYS}`,
    'sign-in mails per address': `${perAddress.limit} per ${minutes(perAddress.windowMs)}`,
    'sign-in form posts per client address (an IPv6 client by its /64)': `${perClient.limit} per ${minutes(perClient.windowMs)}`,
    'a sign-in link': `${minutes(SIGNIN_LINK_TTL_MS)}, one use`,
    'a dashboard session': hours(SESSION_TTL_MS),
    'pixels one check decodes from a picture': `${side(MAX_DECODED_PIXELS)} (\`invisible_watermark\`: ${side(MAX_WATERMARK_PIXELS)})`,
    'decoded pixels held at once by one process (CLI, library, daemon)': mib(DEFAULT_PIXEL_MEMORY_BYTES),
    'a clean stop (`daemon stop`, SIGTERM)': `${seconds(DEFAULT_DRAIN_DELAY_MS)} of drain (while \`/readyz\` is polled), then ${seconds(DEFAULT_SHUTDOWN_GRACE_MS)} for requests in flight`,
  };

  it('has a row for each limit held here, each with the default the code has', () => {
    expect(rows.map(([limit]) => limit)).toEqual(Object.keys(expected));
    for (const [limit, value] of rows) expect(value, limit).toBe(expected[limit!]);
  });

  it('the figures a client sees past a limit are the code\'s', () => {
    const past = new Map(rows.map(([limit, , , after]) => [limit!, after!]));
    expect(past.get("free space left on the data dir's disk by an upload")).toContain(`\`Retry-After: ${STORAGE_FULL_RETRY_SECONDS}\``);
    expect(past.get("an upload's life")).toContain(`swept every ${minutes(UPLOAD_SWEEP_MS)}`);
  });

  it('every flag it names is a flag of daemon start (or of the plan command)', () => {
    const longs = new Set(daemonStartOptions().map((o) => o.long!));
    for (const [limit, , flags] of rows) {
      for (const flag of flags!.matchAll(/`(--[a-z-]+)/g)) {
        if (limit === 'monthly calls per account') continue; // `daemon accounts set-plan --plan P [--quota N]`
        expect(longs.has(flag[1]!), `${limit}: ${flag[1]}`).toBe(true);
      }
    }
  });
});

// SECURITY.md's table is the one full statement of the limits; these docs restate some where a
// reader needs the figure on the spot (the API's reference, what the client sends how, the
// guides). Each such sentence is written here from the constants, so that it fails when either
// side moves.
describe('the limits other docs restate are the code\'s', () => {
  const watermarkSide = Math.sqrt(MAX_WATERMARK_PIXELS);
  const restated: [string, string[]][] = [
    [
      'docs/API.md',
      [
        `Plans: free ${count(plan('free').callsPerMonth)} calls/month and ${plan('free').requestsPerMinute} requests/minute; starter ${count(plan('starter').callsPerMonth)} and ${plan('starter').requestsPerMinute}; growth ${count(plan('growth').callsPerMonth)} and ${plan('growth').requestsPerMinute}; custom: the quota set by the operator, ${plan('custom').requestsPerMinute} requests/minute.`,
        `| \`media\` | ${mb(INLINE_MAX_BYTES)} |`,
        `| multipart \`file\` | ${mb(INLINE_MAX_BYTES)} |`,
        `| \`upload\` | ${mb(REMOTE_MAX_BYTES)} |`,
        `| \`url\` | ${mb(REMOTE_MAX_BYTES)}, ${seconds(DOWNLOAD_TIMEOUT_MS)} |`,
        `a request's headers must arrive whole within ${seconds(HEADERS_TIMEOUT_MS)} of their first byte, and the whole request (headers and body) within ${seconds(REQUEST_TIMEOUT_MS)};`,
        `${seconds(DOWNLOAD_TIMEOUT_MS)} timeout, more than ${MAX_REDIRECTS} redirects`,
        `At most ${MAX_REDIRECTS} redirects, each target parsed and vetted again; ${seconds(DOWNLOAD_TIMEOUT_MS)} for the whole download; the ${mb(REMOTE_MAX_BYTES)} cap`,
        `Up to ${mb(REMOTE_MAX_BYTES)}; an empty file is 400.`,
        `An upload lives ${hours(UPLOAD_TTL_MS)}`,
        `Per account, at most ${UPLOADS_PER_ACCOUNT} live uploads and ${gib(UPLOAD_BYTES_PER_ACCOUNT)} (${count(UPLOAD_BYTES_PER_ACCOUNT / MB)} MB) of their bytes`,
        `\`Retry-After: ${STORAGE_FULL_RETRY_SECONDS}\``,
        `An account has at most ${MAX_ACTIVE_KEYS} active keys`,
        `A link works once and for ${minutes(SIGNIN_LINK_TTL_MS)}.`,
        `per address, ${perAddress.limit} mails per ${minutes(perAddress.windowMs)}`,
        `${perClient.limit} requests per ${minutes(perClient.windowMs)}`,
        `\`Max-Age\` ${hours(SESSION_TTL_MS)}`,
        `connect bound ${seconds(PG_TIMEOUTS_MS.connect)}, statement bound ${seconds(PG_TIMEOUTS_MS.query)}: an answer within about ${seconds(PG_TIMEOUTS_MS.connect + PG_TIMEOUTS_MS.query)}`,
        // The daemon commands' exit codes (the check's: test/exit-code-tables.test.ts).
        `# exit ${DAEMON_EXIT.ok} running, ${DAEMON_EXIT.notRunning} not running`,
        `Exit codes: ${DAEMON_EXIT.ok} done, ${DAEMON_EXIT.failed} failed`,
        `${DAEMON_EXIT.usage} invalid input or a limit (the 26th key), ${EXIT.internalError} an internal error`,
        `\`clock\` and \`requests\` need a running daemon (exit ${DAEMON_EXIT.notRunning} otherwise)`,
      ],
    ],
    [
      'docs/DAEMON.md',
      [
        `\`clock\` and \`requests\` need a running daemon (exit ${DAEMON_EXIT.notRunning} otherwise)`,
        // The stop's steps give each flag's default (held above); the sum is told too.
        `(${seconds(DEFAULT_DRAIN_DELAY_MS + DEFAULT_SHUTDOWN_GRACE_MS)} and a moment by default)`,
        `A sign-in link works once, for ${minutes(SIGNIN_LINK_TTL_MS)}. At most ${perAddress.limit} mails per address per ${minutes(perAddress.windowMs)}. Sessions last ${hours(SESSION_TTL_MS)}.`,
        `An account has at most ${MAX_ACTIVE_KEYS} active keys here too.`,
      ],
    ],
    [
      'docs/CLIENT.md',
      [
        `Files up to ${mb(INLINE_MAX_BYTES)} go as multipart, larger ones (to ${mb(REMOTE_MAX_BYTES)}) through \`POST /v1/uploads\``,
        `| a file or \`-\` up to ${mb(INLINE_MAX_BYTES)} |`,
        `| a file over ${mb(INLINE_MAX_BYTES)}, up to ${mb(REMOTE_MAX_BYTES)} |`,
        `| a file over ${mb(REMOTE_MAX_BYTES)} |`,
      ],
    ],
    // The CLI's own limits: CLI.md's statement, and where the library and the cache repeat them.
    [
      'docs/CLI.md',
      [
        `\`file_too_large\` (${MAX_FILE_BYTES_TEXT} or more`,
        `at most ${MAX_WORKERS_PER_CORE} per core: a larger N is capped there`,
        `with at most ${WINDOW_PER_CORE} files per core in flight`,
        `in batches of up to ${NUMBER_WORDS[SCAN_BATCH]}`,
      ],
    ],
    ['docs/CACHE.md', [`bound is ${SCAN_CACHE_MAX_BYTES / 1e9} GB of data by default`]],
    ['docs/LIBRARY.md', [`${WINDOW_PER_CORE} files in flight per core`, `At most ${NUMBER_WORDS[MAX_WORKERS_PER_CORE]} per core are started`, `go as multipart up to ${mb(INLINE_MAX_BYTES)}`, `(up to ${mb(REMOTE_MAX_BYTES)};`, `POST /v1/uploads (free; up to ${mb(REMOTE_MAX_BYTES)})`]],
    ['docs/REPORT.md', [`Files up to ${mb(REMOTE_MAX_BYTES)} (the /v1 limit for a file sent by upload)`]],
    [
      'docs/SELF-HOSTING.md',
      [
        `${mb(INLINE_MAX_BYTES)} inline and ${mb(REMOTE_MAX_BYTES)} uploads`,
        `the daemon ends any request after ${seconds(REQUEST_TIMEOUT_MS)}; a \`url\` download takes at most ${seconds(DOWNLOAD_TIMEOUT_MS)}`,
        `at most ${seconds(PG_TIMEOUTS_MS.connect)} waiting for a connection plus ${seconds(PG_TIMEOUTS_MS.query)} for the statement that did not answer`,
        `while the database does not answer (within ${seconds(PG_TIMEOUTS_MS.connect + PG_TIMEOUTS_MS.health)})`,
      ],
    ],
    ['README.md', [`\`invisible_watermark\` decodes every picture of up to ${watermarkSide} x ${watermarkSide} pixels`]],
    ['docs/DETECTORS.md', [`only up to ${side(MAX_DECODED_PIXELS)} pixels`, `Pictures of more than ${watermarkSide} x ${watermarkSide} pixels`]],
    [
      'docs/SECURITY.md',
      [
        `no check decodes a picture of more than ${side(MAX_DECODED_PIXELS)} pixels`,
        `\`invisible_watermark\` stops at ${side(MAX_WATERMARK_PIXELS)}`,
        `one gate of ${mib(DEFAULT_PIXEL_MEMORY_BYTES)}`,
        `width x height x ${PIXEL_BYTES} bytes, ${WEBP_PIXEL_BYTES} for a WebP`,
        `keeps at most ${UPLOADS_PER_ACCOUNT} live uploads and ${gib(UPLOAD_BYTES_PER_ACCOUNT)} of their bytes`,
      ],
    ],
  ];

  it.each(restated)('%s', (file, sentences) => {
    const text = read(file).replace(/\s+/g, ' ');
    for (const sentence of sentences) expect(text.includes(sentence), `${file} says: ${sentence}`).toBe(true);
  });
});

describe("docs/CLI.md, the full reference of `provenance check`", () => {
  it("check --help's figures are the code's", async () => {
    const help = (await runCli(['check', '--help'])).stdout.replace(/\s+/g, ' ');
    expect(help).toContain(`at most ${MAX_WORKERS_PER_CORE} per core`);
    expect(help).toContain(`oldest entries pruned first (default ${SCAN_CACHE_MAX_BYTES / 1e9}GB)`);
  });

  it('names every option of check --help', async () => {
    const help = (await runCli(['check', '--help'])).stdout;
    const options = help.slice(help.indexOf('Options:'), help.indexOf('Exit codes:'));
    const flags = [...options.matchAll(/^ {2}(?:(-\w), )?(--[a-z-]+)/gm)].filter((m) => m[2] !== '--help');
    expect(flags.length).toBeGreaterThanOrEqual(20);
    const doc = read('docs/CLI.md');
    // `-0` stands for its long form --null.
    for (const [, short, long] of flags) expect(doc.includes(`\`${long}`) || (short !== undefined && doc.includes(`\`${short}`)), long).toBe(true);
  });
});

describe('docs/TESTING.md counts the mutation targets the script lists', () => {
  it('"The N modules" and "All N" are scripts/mutation-targets.mjs\'s', () => {
    const n = Object.keys(TARGETS).length;
    const text = section('docs/TESTING.md', '## Mutation testing: `npm run mutation`').replace(/\s+/g, ' ');
    expect(text).toContain(`The ${n} modules and the test files run for each`);
    expect(text).toContain(`All ${n}: \`npm run mutation\``);
  });
});

// /healthz and /readyz, told in the API's route table, the daemon guide and the operator's guide:
// every whole body the docs show is the body a running daemon answers.
describe('the health and readiness bodies the docs show', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await makeApp();
    await workersUp(t);
  });
  afterAll(() => t?.close());

  it.each([
    ['/readyz', 'ready', ['docs/API.md', 'docs/DAEMON.md', 'docs/SELF-HOSTING.md']],
    ['/healthz', 'ok', ['docs/API.md', 'docs/SELF-HOSTING.md']],
  ] as const)('GET %s', async (url, status, files) => {
    const answer = await t.app.inject({ method: 'GET', url });
    expect(answer.statusCode).toBe(200);
    const body = answer.json();
    expect(body.status).toBe(status);
    for (const file of files) {
      const shown = [...read(file).matchAll(/`(\{"status": ?"(\w+)"[^`]*\})`/g)].filter((m) => m[2] === status).map((m) => JSON.parse(m[1]!));
      expect(shown.length, file).toBeGreaterThan(0);
      for (const example of shown) expect(example, file).toEqual(body);
    }
  });
});
