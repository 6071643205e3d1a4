// Every shell example of README.md, CONTRIBUTING.md and docs/*.md, run as written, with its exit code checked, so
// that a doc example cannot rot (issue 17). Each fenced block carries a language: `sh` blocks
// are commands and run here; `text` and `json` blocks are output or synopses and do not.
//
// How they run: each `sh` block is one `sh` script in a fresh folder that holds the files the
// examples name (a copy of examples/, and C2PA-TRUST-LIST.pem), with its own config folder and
// data dir. `provenance` is the installed command: beforeAll packs this tree and installs the
// tarball with `npm install -g --prefix` into a folder of its own, as the README's Install says for
// a user without root, and puts that folder's bin/ first on PATH. `npx` there refuses to run
// (the docs never use it: outside the clone, `npx provenance` is the registry's unrelated package),
// and npm itself runs with `offline` set. A daemon listens on 127.0.0.1 only, on a free port:
// `daemon start` gets `--port N` and `127.0.0.1:8787` becomes `127.0.0.1:N`. Nothing else is
// changed. Where an example's point is its output, OUTPUT below checks that too.
//
// Skipped, and why, in SKIPPED below: only examples that need the network beyond 127.0.0.1 (a
// remote API, a database server elsewhere, the npm registry), two of which test/readme.test.ts
// runs in a copy of the tree, or root or a Docker daemon (docs/SELF-HOSTING.md's operator
// commands, run or checked with the names changed in test/**/self-hosting*.test.ts).
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, relative, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makePki } from './fixtures/make.js';
import { ROOT } from './helpers/corpus.js';
import { createTestDatabase, unreachableReason, type TestDatabase } from './helpers/postgres.js';

const DOCS = ['README.md', 'CONTRIBUTING.md', ...readdirSync(join(ROOT, 'docs')).filter((f) => f.endsWith('.md')).map((f) => `docs/${f}`)];

interface Block {
  file: string;
  line: number;
  lang: string;
  body: string;
  /** The first command line, which names the block in SKIPPED and EXIT_CODES. */
  first: string;
}

function blocksOf(file: string): Block[] {
  const lines = readFileSync(join(ROOT, file), 'utf8').split('\n');
  const out: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    const open = /^```(\S*)\s*$/.exec(lines[i]!);
    if (!open) continue;
    const start = i;
    const body: string[] = [];
    for (i++; i < lines.length && !/^```\s*$/.test(lines[i]!); i++) body.push(lines[i]!);
    const first = body.find((l) => l.trim() && !l.trim().startsWith('#'))?.trim() ?? '';
    out.push({ file, line: start + 1, lang: open[1]!, body: body.join('\n'), first });
  }
  return out;
}

const BLOCKS = DOCS.flatMap(blocksOf);
const SHELL = BLOCKS.filter((b) => b.lang === 'sh');

/** Shell examples not run here, by their first command, with the reason. */
const SKIPPED: Record<string, string> = {
  'npm install && node bin/provenance.js check examples/':
    'installs from the npm registry; test/readme.test.ts runs it in a copy of the tree whose node_modules are there already',
  'npm pack                                       # builds, then writes provenance-check-0.1.0.tgz':
    'installs from the npm registry; beforeAll here does the same (npm pack, then npm install -g --prefix, from the npm cache), and every example runs with the command it installs',
  'npm test': 'runs this whole suite, this file too (it would start itself); test/readme.test.ts runs it nested, on one quick file',
  'provenance login --api-url https://api.example.com   # asks for the key (hidden); no call spent':
    'needs a login to a remote API over the network, and types the key at a hidden prompt',
  // docs/SELF-HOSTING.md: an operator's commands for other machines. Its PostgreSQL ones run in
  // test/postgres/self-hosting.test.ts, with the names changed; its configuration files are
  // checked in test/self-hosting-configs.test.ts.
  "sudo -u postgres psql -v ON_ERROR_STOP=1 <<'SQL'":
    'creates a role and a database as the postgres superuser (sudo); test/postgres/self-hosting.test.ts runs its SQL on the test server under a throwaway name',
  'provenance daemon migrate --store postgres://provenance:PASSWORD@db.internal:5432/provenance':
    'needs a PostgreSQL server at db.internal; test/postgres/self-hosting.test.ts runs it on the test server',
  'PGPASSWORD=a-long-random-password pg_dump -h db.internal -U provenance -d provenance -Fc -f "provenance-$(date +%F).dump"':
    'needs a PostgreSQL server at db.internal; test/postgres/self-hosting.test.ts runs both dumps on the test server',
  'sudo -u postgres createdb -O provenance -T template0 provenance_restored':
    'needs a PostgreSQL server at db.internal and sudo; test/postgres/self-hosting.test.ts runs the restore on the test server',
  'provenance daemon accounts create --email team@example.com --plan growth --store postgres://provenance:PASSWORD@db.internal:5432/provenance':
    'needs a PostgreSQL server at db.internal; test/postgres/self-hosting.test.ts runs it on the test server',
  'useradd --system --home-dir /var/lib/provenance --shell /usr/sbin/nologin provenance':
    'adds a system user and starts a systemd service (root); test/self-hosting-configs.test.ts checks the unit with systemd-analyze verify',
  'docker build -t provenance:0.1.0 .': 'needs a Docker daemon and node:22-bookworm-slim from a registry; test/dockerfile.test.ts holds the Dockerfile to the package and the CLI',
  // docs/SCALE.md's role for the queue, in the database of SELF-HOSTING.md.
  "sudo -u postgres psql -v ON_ERROR_STOP=1 -d provenance <<'SQL'":
    'creates a role as the postgres superuser (sudo); test/postgres/scan-queue-role.test.ts runs its SQL on the test server under throwaway names, then a whole scan as that role',
  'provenance trust update                    # fetches C2PA-TRUST-LIST.pem and C2PA-TSA-TRUST-LIST.pem':
    'fetches the lists from GitHub; test/trust-update.test.ts runs it against an https server on 127.0.0.1 (PROVENANCE_TRUST_LIST_URL)',
};

/** Any npm command that installs resolves packages from the npm registry: never run here. */
const NPM_INSTALL = /\bnpm\s+(install|i|in|isntall|add|ci|update|up|exec)\b/;

/**
 * The queue of docs/SCALE.md's distributed-scan examples: a database of their own on the test
 * server (PROVENANCE_QUEUE for every block), when one answers; else those examples are skipped
 * (CI always has one: vitest.config.ts fails without it).
 */
const queueDb: TestDatabase | undefined = (await unreachableReason()) === undefined ? await createTestDatabase() : undefined;
const SCAN_COMMAND = /\bprovenance scan\b/;

/** Why a block is not run, or undefined when it is. */
function skipReason(block: Block): string | undefined {
  if (block.first in SKIPPED) return SKIPPED[block.first];
  if (!queueDb && SCAN_COMMAND.test(block.body)) return 'needs a PostgreSQL server for the queue (PROVENANCE_TEST_DATABASE_URL); test/postgres/fleet-*.test.ts run the same commands';
  if (commandsOf(block.body).some((c) => NPM_INSTALL.test(c))) return 'installs from the npm registry';
  return undefined;
}

/** Exit codes other than 0, by command (a substring of it), for the examples that mean them. */
const EXIT_CODES: Record<string, number> = {
  // examples/ holds files without a credential, which is what the gate is for: exit 4.
  '--fail-on c2pa=not_found --fail-on c2pa=unavailable examples/': 4,
};

/**
 * Logical commands of a block: comment lines dropped, `\` and trailing-`|` continuations joined,
 * a here-document kept whole with the command that opens it.
 */
function commandsOf(body: string): string[] {
  const out: string[] = [];
  let current = '';
  let hereEnd: string | undefined;
  for (const raw of body.split('\n')) {
    const line = raw.trimEnd();
    if (hereEnd !== undefined) {
      current += `\n${raw}`;
      if (line === hereEnd) {
        out.push(current);
        current = '';
        hereEnd = undefined;
      }
      continue;
    }
    if (!current && (!line.trim() || line.trim().startsWith('#'))) continue;
    current += (current ? '\n' : '') + line;
    const here = /<<-?\s*(['"]?)(\w+)\1/.exec(line.replace(/\s#.*$/, ''));
    if (here) {
      hereEnd = here[2];
      continue;
    }
    if (line.endsWith('\\') || line.endsWith('|')) continue;
    out.push(current);
    current = '';
  }
  if (current) out.push(current);
  return out;
}

function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const server = createServer();
    server.on('error', fail);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => ok(port));
    });
  });
}

let root: string;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'prov-doc-examples-'));
  // The README's Install, for a user without root: pack (dist/ is built already: no scripts),
  // then install the tarball globally under a prefix of our own. Dependencies come from the npm
  // cache when they can (--prefer-offline), as in test/library-package.test.ts.
  const tarball = execFileSync('npm', ['pack', '--ignore-scripts', '--silent', '--pack-destination', root], { cwd: ROOT, encoding: 'utf8' }).trim().split('\n').at(-1)!;
  execFileSync('npm', ['install', '-g', '--prefix', join(root, 'prefix'), '--prefer-offline', '--no-audit', '--no-fund', '--silent', join(root, tarball)], { cwd: root, stdio: 'pipe' });
  const bin = join(root, 'bin');
  mkdirSync(bin);
  writeFileSync(join(bin, 'npx'), `#!/bin/sh\necho "doc examples: npx $1 is not available here (outside the clone, npx provenance is another package)" >&2\nexit 127\n`);
  chmodSync(join(bin, 'npx'), 0o755);
}, 240_000);
afterAll(async () => {
  rmSync(root, { recursive: true, force: true });
  await queueDb?.drop();
});

/** A fresh folder with every file the examples name. */
function workspace(name: string): string {
  const work = join(root, name);
  const put = (path: string, bytes: Uint8Array | string) => {
    mkdirSync(dirname(join(work, path)), { recursive: true });
    writeFileSync(join(work, path), bytes);
  };
  cpSync(join(ROOT, 'examples'), join(work, 'examples'), { recursive: true });
  const pki = makePki(join(root, 'pki'));
  put('C2PA-TRUST-LIST.pem', `${pki.chainPem.trim()}\n${pki.rootPem.trim()}\n`);
  mkdirSync(join(work, 'config'));
  return work;
}

interface BlockRun {
  codes: number[];
  stdout: string;
  stderr: string;
}

function runBlock(block: Block, work: string, port: number): BlockRun {
  const commands = commandsOf(block.body).map((c) => c.replaceAll('127.0.0.1:8787', `127.0.0.1:${port}`).replace(/\bdaemon start\b/, `daemon start --port ${port}`));
  const rcFile = join(work, '.exit-codes');
  const script = commands.map((c) => `${c}\necho $? >> '${rcFile}'`).join('\n');
  const run = spawnSync('sh', ['-c', script], {
    cwd: work,
    encoding: 'utf8',
    timeout: 120_000,
    env: {
      ...process.env,
      PATH: `${join(root, 'prefix', 'bin')}:${join(root, 'bin')}:${process.env.PATH}`,
      HOME: join(work, 'home'),
      PROVENANCE_CONFIG_DIR: join(work, 'config'),
      PROVENANCE_DATA_DIR: join(work, 'data'),
      PROVENANCE_API_KEY: '',
      PROVENANCE_API_URL: '',
      PROVENANCE_QUEUE: queueDb?.url ?? '',
      NO_COLOR: '1',
      CI: 'true',
      // Should an example reach npm, it must not fetch from the registry (it fails instead).
      npm_config_offline: 'true',
    },
  });
  const codes = existsSync(rcFile) ? readFileSync(rcFile, 'utf8').trim().split('\n').map(Number) : [];
  return { codes, stdout: run.stdout, stderr: run.stderr };
}

const expectedCodes = (block: Block) => commandsOf(block.body).map((c) => Object.entries(EXIT_CODES).find(([k]) => c.includes(k))?.[1] ?? 0);

/** NDJSON lines of an output (a curl body ends without a line break: `-w '\\n'` gives one). */
const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .map((l) => JSON.parse(l));

/**
 * What an example's output must show, where the output is its point, by a command of its block
 * (a substring). Run while a daemon the block started still runs.
 */
const OUTPUT: Record<string, (run: BlockRun, work: string, port: number) => void | Promise<void>> = {
  '--data-binary @-': (run, work) => {
    // Point 1: the photo went through the daemon both ways, as a detection result.
    // curl prints each body as it came, without a line break after it.
    const results = run.stdout
      .split(/(?=\{"id":"chk_)/)
      .filter((l) => l.startsWith('{"id":"chk_'))
      .map((l) => JSON.parse(l.slice(0, l.lastIndexOf('}') + 1)));
    expect(results.map((r) => [r.media.type, r.media.bytes])).toEqual([
      ['image/jpeg', readFileSync(join(work, 'examples', 'signed.jpg')).length],
      ['image/jpeg', readFileSync(join(work, 'examples', 'signed.jpg')).length],
    ]);
    expect(results[1].checks_run).toEqual(['c2pa']);
  },
  'find examples/ -type f -print0 | provenance check --json --incremental': (run, work) => {
    // A real folder: every file `find` lists is checked (one NDJSON line each, on stdout), and
    // the first command's scan of the same folder went to results.ndjson.
    const files = readdirSync(join(work, 'examples')).sort();
    const listed = jsonLines(run.stdout);
    expect(listed.map((r) => r.source).sort()).toEqual(files.map((f) => `examples/${f}`));
    const first = jsonLines(readFileSync(join(work, 'results.ndjson'), 'utf8'));
    expect(first.map((r) => r.source)).toEqual(files.map((f) => `examples/${f}`));
    expect(run.stderr).not.toContain('no file was checked');
  },
  'daemon outbox --last': async (run, _work, port) => {
    // The form sent by curl made a sign-in mail, and its link signs in: its page's "Sign in as"
    // button (a POST with the page's CSRF token) makes a session and goes to the dashboard.
    const link = run.stdout.trim().split('\n').at(-1)!;
    expect(link).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:${port}/signin/verify\\?token=[A-Za-z0-9_-]+$`));
    const opened = await fetch(link, { redirect: 'manual' });
    expect(opened.status).toBe(200);
    const page = await opened.text();
    expect(page).toContain('Sign in as');
    const csrf = /^prv_csrf=([A-Za-z0-9_-]{43});/.exec(opened.headers.get('set-cookie') ?? '')?.[1];
    expect(/name="csrf" value="([^"]+)"/.exec(page)?.[1]).toBe(csrf);
    const token = new URL(link).searchParams.get('token')!;
    const pressed = await fetch(`http://127.0.0.1:${port}/signin/verify`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie: `prv_csrf=${csrf}` },
      body: new URLSearchParams({ csrf: csrf!, token }).toString(),
      redirect: 'manual',
    });
    expect(pressed.status).toBe(303);
    expect(pressed.headers.get('location')).toBe('/dashboard');
    expect(pressed.headers.get('set-cookie')).toMatch(/^prv_session=/);
  },
  'daemon start --test-mode --fixtures fixtures.json': (run, work) => {
    // The fixture's key made the month's last call; the request log shows it; the state saved
    // after the reset holds the account and no usage; all of it in the block's own data dir.
    const [detected] = jsonLines(run.stdout);
    expect(detected.media.bytes).toBe(readFileSync(join(work, 'examples', 'camera.jpg')).length);
    expect(run.stdout).toMatch(/\(test clock/);
    expect(run.stdout).toMatch(/POST\s+\/v1\/detect\s+200\s.*ci@example\.com\s+prv_\w{4}\.\.\.\s+used 500\b/);
    const state = JSON.parse(readFileSync(join(work, 'state.json'), 'utf8'));
    expect(state.format).toBe('provenance-daemon-state');
    expect(state.accounts.map((a: { email: string }) => a.email)).toEqual(['ci@example.com']);
    expect(state.usage).toEqual([]);
    expect(existsSync(join(work, 'test-daemon', 'daemon.log'))).toBe(true);
    expect(existsSync(join(work, 'data'))).toBe(false);
  },
};

const SKIPPED_BLOCKS = SHELL.flatMap((b) => {
  const why = skipReason(b);
  return why ? [{ block: b, why }] : [];
});

describe('doc examples', () => {
  it('every fenced block says what it is (sh, text or json), so no shell example escapes this test', () => {
    // js and ts blocks run elsewhere: docs/LIBRARY.md's in test/library-docs.test.ts, the README's
    // client example in test/readme-example.test.ts.
    // docs/SELF-HOSTING.md's configuration files (nginx, caddyfile, ini, dockerfile, yaml) are
    // checked by their own tools in test/self-hosting-configs.test.ts.
    const untagged = BLOCKS.filter((b) => !['sh', 'text', 'json', 'js', 'ts', 'nginx', 'caddyfile', 'ini', 'dockerfile', 'yaml'].includes(b.lang)).map((b) => `${b.file}:${b.line}`);
    expect(untagged).toEqual([]);
    expect(SHELL.length).toBeGreaterThanOrEqual(8);
    // Every skip names a block that exists, so the list cannot outlive its examples; every
    // output check names one block that runs.
    for (const first of Object.keys(SKIPPED)) expect(SHELL.some((b) => b.first === first), first).toBe(true);
    for (const command of Object.keys(OUTPUT)) expect(run.filter((b) => b.body.includes(command)).length, command).toBe(1);
  });

  const run = SHELL.filter((b) => !skipReason(b));
  it.each(run.map((b) => [`${b.file}:${b.line} ${b.first.slice(0, 60)}`, b] as const))('%s', async (_name, block) => {
    const work = workspace(`${block.file.replace(/\W/g, '_')}_${block.line}`);
    const port = await freePort();
    try {
      const result = runBlock(block, work, port);
      expect(result.codes, `${result.stdout}\n${result.stderr}`).toEqual(expectedCodes(block));
      for (const [command, check] of Object.entries(OUTPUT)) if (block.body.includes(command)) await check(result, work, port);
    } finally {
      // A daemon an example left running (on purpose, or a failed run) is stopped, whichever
      // data dir it used.
      for (const dir of readdirSync(work)) {
        if (!existsSync(join(work, dir, 'daemon.lock'))) continue;
        spawnSync(process.execPath, [join(ROOT, 'bin', 'provenance.js'), 'daemon', 'stop', '--data-dir', join(work, dir)], { timeout: 20_000 });
      }
    }
  }, 180_000);

  it("the README's Install put `provenance` on PATH for a user without root (npm install -g --prefix)", () => {
    const install = SHELL.find((b) => b.first.startsWith('npm pack'));
    expect(install?.file).toBe('README.md');
    expect(commandsOf(install!.body).map((c) => c.replace(/\s+#.*$/, ''))).toEqual(['npm pack', 'npm install -g ./provenance-check-0.1.0.tgz', 'provenance --version']);
    const run = spawnSync('sh', ['-c', 'command -v provenance && provenance --version'], {
      encoding: 'utf8',
      env: { ...process.env, PATH: `${join(root, 'prefix', 'bin')}:${join(root, 'bin')}:${process.env.PATH}` },
    });
    expect(run.stdout).toBe(`${join(root, 'prefix', 'bin', 'provenance')}\n0.1.0\n`);
  });

  it('the skipped examples, and why: root, Docker, the network beyond 127.0.0.1, or `npm test` itself', () => {
    // Written out so that a reader of the test output sees what is not run here.
    for (const { block, why } of SKIPPED_BLOCKS) console.log(`doc examples: not run: ${block.file}:${block.line} ${block.first}: ${why}`);
    expect(SKIPPED_BLOCKS.every(({ why }) => why.length > 10)).toBe(true);
    // Nothing that is run installs from the npm registry, not even `npm install <name>`.
    expect(run.flatMap((b) => commandsOf(b.body)).filter((c) => NPM_INSTALL.test(c))).toEqual([]);
  });
});

describe('doc links (point 7)', () => {
  const tracked = new Set(execFileSync('git', ['ls-files', '-co', '--exclude-standard'], { cwd: ROOT, encoding: 'utf8' }).split('\n').filter(Boolean));
  const slug = (heading: string) =>
    heading
      .trim()
      .toLowerCase()
      .replace(/[^\p{L}\p{N} _-]/gu, '')
      .replace(/ /g, '-');
  const anchorsOf = (file: string) => new Set(readFileSync(join(ROOT, file), 'utf8').split('\n').filter((l) => /^#{1,6} /.test(l)).map((l) => slug(l.replace(/^#+ /, ''))));

  it.each(DOCS)('%s: links stay in the repository (or go to public sites), and every target and anchor exists', (file) => {
    const text = readFileSync(join(ROOT, file), 'utf8');
    expect(text).not.toContain('../shared');
    expect(text).not.toMatch(/\b(SPEC|CONTRACT)\.md\b/);
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^https:\/\//.test(target!)) continue;
      expect(target, `${file}: ${target}`).not.toMatch(/^[a-z]+:/i); // no http:, file:, ... links
      const [path, anchor] = target!.split('#') as [string, string | undefined];
      const resolved = path ? relative(ROOT, resolve(dirname(join(ROOT, file)), path)) : file;
      expect(resolved.startsWith('..'), `${file}: ${target} leaves the repository`).toBe(false);
      expect(tracked.has(resolved) || [...tracked].some((t) => t.startsWith(`${resolved}/`)), `${file}: ${target} does not exist`).toBe(true);
      if (anchor && resolved.endsWith('.md')) expect(anchorsOf(resolved).has(anchor), `${file}: #${anchor} is no heading of ${resolved}`).toBe(true);
    }
  });
});
