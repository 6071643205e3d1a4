// Sign-in mail: the offline outbox (.eml files + the link on the daemon's console, never in its
// structured log), `provenance daemon outbox --last [--json]`, the transport choice, and SMTP
// through nodemailer against a tiny SMTP server on 127.0.0.1 written here.
import { execFile } from 'node:child_process';
import { readdirSync, readFileSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runDaemonOutbox } from '../../src/commands/daemon-outbox.js';
import { loggerOptions } from '../../src/daemon/http/app.js';
import {
  checkSmtpUrl,
  composeSigninMessage,
  createMailer,
  MailerConfigError,
  OutboxMailer,
  SmtpMailer,
} from '../../src/daemon/web/mailer.js';
import { listOutbox, readMessage } from '../../src/daemon/web/outbox.js';
import { tempDir } from './helpers.js';
import { BIN, startDaemonProcess } from './process.js';
import { csrfOf, openLink, WebClient, webApp } from './signin-helpers.js';

const run = promisify(execFile);
const LINK = 'http://127.0.0.1:8787/signin/verify?token=abcdefghijklmnopqrstuvwxyzABCDEFGHIJ0123456_-';
const mail = (to = 'me@example.com', link = LINK) => ({
  to,
  link,
  expiresAt: new Date('2026-11-15T12:15:00Z'),
  date: new Date('2026-11-15T12:00:00Z'),
});

function memoryIO(env: NodeJS.ProcessEnv = {}) {
  let out = '';
  let err = '';
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  stdout.on('data', (d) => (out += d));
  stderr.on('data', (d) => (err += d));
  return { io: { stdin: new PassThrough(), stdout, stderr, env }, out: () => out, err: () => err };
}

describe('the message', () => {
  it('is RFC 5322 text with the link on one line, and reads back', () => {
    const text = composeSigninMessage(mail());
    expect(text).toMatch(/^From: provenance daemon <noreply@provenance\.localhost>\r\nTo: me@example\.com\r\nSubject: Your provenance sign-in link\r\n/);
    expect(text).toContain('Date: Sun, 15 Nov 2026 12:00:00 +0000\r\n');
    expect(text).toContain(`\r\n\r\nHello,`);
    expect(text).toContain(`\r\n${LINK}\r\n`);
    expect(text).toContain('expires at 15 Nov 2026, 12:15 UTC');
    expect(readMessage(text)).toEqual({ to: 'me@example.com', subject: 'Your provenance sign-in link', date: 'Sun, 15 Nov 2026 12:00:00 +0000', link: LINK });
  });

  it('reads links from quoted-printable and base64 bodies too (mail clients re-save them so)', () => {
    const qp = `To: a@b.test\r\nContent-Transfer-Encoding: quoted-printable\r\n\r\nhttp://127.0.0.1:8787/signin/verify?token=3Dabc=\r\ndef_-\r\n`;
    expect(readMessage(qp).link).toBe('http://127.0.0.1:8787/signin/verify?token=abcdef_-');
    const b64 = `To: a@b.test\r\nContent-Transfer-Encoding: base64\r\n\r\n${Buffer.from(`see ${LINK}\n`).toString('base64').replace(/(.{20})/g, '$1\r\n')}`;
    expect(readMessage(b64).link).toBe(LINK);
  });
});

describe('the outbox', () => {
  it('writes one private .eml per mail and prints the link on the console', async () => {
    const dir = tempDir();
    try {
      let console = '';
      const out = new PassThrough();
      out.on('data', (d) => (console += d));
      // A console that is a person's terminal: the one place a link is printed.
      const mailer = new OutboxMailer({ dataDir: dir.dir, console: out, linkOnConsole: true });
      await mailer.send(mail('a@example.com', `${LINK}1`));
      await mailer.send(mail('b@example.com', `${LINK}2`));
      const files = readdirSync(join(dir.dir, 'outbox'));
      expect(files).toHaveLength(2);
      expect(statSync(join(dir.dir, 'outbox')).mode & 0o777).toBe(0o700);
      expect(statSync(join(dir.dir, 'outbox', files[0]!)).mode & 0o777).toBe(0o600);
      expect(listOutbox(dir.dir).map((m) => [m.to, m.link])).toEqual([
        ['a@example.com', `${LINK}1`],
        ['b@example.com', `${LINK}2`],
      ]);
      expect(console).toBe(
        `sign-in link for a@example.com (expires 15 Nov 2026, 12:15 UTC): ${LINK}1\nsign-in link for b@example.com (expires 15 Nov 2026, 12:15 UTC): ${LINK}2\n`,
      );
    } finally {
      dir.cleanup();
    }
  });

  it('a console that is a log (detached: daemon.log; systemd: the journal) gets where the mail went, neither the link nor the address', async () => {
    const dir = tempDir();
    try {
      let console = '';
      const out = new PassThrough();
      out.on('data', (d) => (console += d));
      await new OutboxMailer({ dataDir: dir.dir, console: out, linkOnConsole: false }).send(mail());
      await new OutboxMailer({ dataDir: dir.dir, console: out }).send(mail()); // the default
      expect(console).toMatch(/^(sign-in mail saved as outbox\/\S+\.eml; print its link with: provenance daemon outbox --last --data-dir \S+\n){2}$/);
      expect(console).not.toContain('token=');
      expect(console).not.toContain('example.com');
    } finally {
      dir.cleanup();
    }
  });

  it('`daemon outbox` lists mails, --last prints the newest link, --json the record, without a daemon', async () => {
    const dir = tempDir();
    try {
      const empty = memoryIO();
      expect(await runDaemonOutbox({ dataDir: dir.dir, last: true, json: false }, empty.io)).toBe(1);
      expect(empty.err()).toContain('no sign-in mail');
      const mailer = new OutboxMailer({ dataDir: dir.dir });
      for (let i = 1; i <= 3; i++) await mailer.send(mail(`u${i}@example.com`, `${LINK}${i}`));
      // A stray file without a link is listed but never taken for the last link.
      mkdirSync(join(dir.dir, 'outbox'), { recursive: true });
      writeFileSync(join(dir.dir, 'outbox', '99999999T999999999Z-zzzz.eml'), 'To: x@example.com\r\n\r\nno link here\r\n');

      const last = memoryIO();
      expect(await runDaemonOutbox({ dataDir: dir.dir, last: true, json: false }, last.io)).toBe(0);
      expect(last.out()).toBe(`${LINK}3\n`);
      const json = memoryIO();
      await runDaemonOutbox({ dataDir: dir.dir, last: true, json: true }, json.io);
      expect(JSON.parse(json.out())).toMatchObject({ to: 'u3@example.com', link: `${LINK}3`, subject: 'Your provenance sign-in link' });
      const all = memoryIO();
      await runDaemonOutbox({ dataDir: dir.dir, last: false, json: true }, all.io);
      expect(JSON.parse(all.out()).messages).toHaveLength(4);
      // PROVENANCE_DATA_DIR is honoured like everywhere else.
      const env = memoryIO({ PROVENANCE_DATA_DIR: dir.dir });
      await runDaemonOutbox({ last: true, json: false }, env.io);
      expect(env.out()).toBe(`${LINK}3\n`);
    } finally {
      dir.cleanup();
    }
  });
});

describe('transport choice', () => {
  it('outbox by default, SMTP with an smtp:// or smtps:// URL', () => {
    expect(createMailer({ dataDir: '/nonexistent' }).kind).toBe('outbox');
    expect(createMailer({ dataDir: '/nonexistent', smtpUrl: 'smtp://127.0.0.1:2525' })).toBeInstanceOf(SmtpMailer);
    expect(createMailer({ dataDir: '/nonexistent', smtpUrl: 'smtps://u:p@127.0.0.1:465' }).kind).toBe('smtp');
  });

  it('refuses other URLs without echoing a password', () => {
    for (const bad of ['http://user:hunter2@mail.example', 'hunter2', 'smtp://']) {
      let err: unknown;
      try {
        checkSmtpUrl(bad);
      } catch (e) {
        err = e;
      }
      expect(err, bad).toBeInstanceOf(MailerConfigError);
      expect((err as Error).message).not.toContain('hunter2');
    }
    expect(() => createMailer({ dataDir: '/x', mailFrom: 'a@b.test\r\nBcc: everyone@example.com' })).toThrow(MailerConfigError);
  });
});

interface Received {
  from: string;
  to: string[];
  auth: string | null;
  data: string;
}

/** Just enough SMTP (EHLO, AUTH PLAIN, MAIL, RCPT, DATA, QUIT) on 127.0.0.1 to receive messages. */
function smtpServer(options: { rejectRcpt?: boolean } = {}): Promise<{ port: number; received: Received[]; close(): Promise<void> }> {
  const received: Received[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.setEncoding('utf8');
    let buffer = '';
    let inData = false;
    let current: Received = { from: '', to: [], auth: null, data: '' };
    const reply = (line: string) => socket.write(`${line}\r\n`);
    reply('220 test.local ESMTP');
    socket.on('data', (chunk: string) => {
      buffer += chunk;
      for (let i = buffer.indexOf('\r\n'); i >= 0; i = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, i);
        buffer = buffer.slice(i + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            received.push(current);
            current = { from: '', to: [], auth: current.auth, data: '' };
            reply('250 2.0.0 queued');
          } else current.data += `${line.startsWith('..') ? line.slice(1) : line}\n`;
          continue;
        }
        const verb = line.split(' ')[0]!.toUpperCase();
        if (verb === 'EHLO') socket.write('250-test.local\r\n250-AUTH PLAIN\r\n250 8BITMIME\r\n');
        else if (verb === 'HELO') reply('250 test.local');
        else if (verb === 'AUTH') {
          current.auth = Buffer.from(line.split(' ')[2] ?? '', 'base64').toString('utf8').split('\0').slice(1).join(':');
          reply('235 2.7.0 ok');
        } else if (verb === 'MAIL') {
          current.from = line;
          reply('250 ok');
        } else if (verb === 'RCPT') {
          if (options.rejectRcpt) reply('550 5.1.1 no such user');
          else {
            current.to.push(line);
            reply('250 ok');
          }
        } else if (verb === 'DATA') {
          inData = true;
          reply('354 go ahead');
        } else if (verb === 'QUIT') socket.end('221 bye\r\n');
        else if (verb === 'RSET' || verb === 'NOOP') reply('250 ok');
        else reply('502 not implemented');
      }
    });
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      resolve({
        port: typeof address === 'object' && address ? address.port : 0,
        received,
        close: () =>
          new Promise((done) => {
            for (const s of sockets) s.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}

describe('SMTP', () => {
  it('--smtp-url sends the sign-in mail through nodemailer, and the link signs in', async () => {
    const smtp = await smtpServer();
    const dir = tempDir();
    try {
      const t = await webApp({ smtpUrl: `smtp://mailer:s3cret@127.0.0.1:${smtp.port}`, mailFrom: 'Provenance <login@example.test>', mailer: undefined }, { dir: dir.dir });
      try {
        const c = t.client();
        const sent = await c.post('/signin', { email: 'smtp@example.com', csrf: csrfOf((await c.get('/signin')).text) });
        expect(sent.status).toBe(200);
        expect(sent.text).not.toContain('daemon outbox');
        expect(smtp.received).toHaveLength(1);
        const message = smtp.received[0]!;
        expect(message.auth).toBe('mailer:s3cret');
        expect(message.from).toContain('<login@example.test>');
        expect(message.to).toEqual(['RCPT TO:<smtp@example.com>']);
        expect(message.data).toContain('Subject: Your provenance sign-in link');
        const link = readMessage(message.data).link!;
        expect(link).toMatch(new RegExp(`^${t.base}/signin/verify\\?token=`));
        // Nothing written to the outbox.
        expect(listOutbox(dir.dir)).toEqual([]);
        const { signedIn } = await openLink(c, link);
        expect(signedIn?.location).toBe('/dashboard');
        const landed = await c.follow(signedIn!.location!);
        expect(landed.text).toContain('smtp@example.com');
      } finally {
        await t.app.close();
      }
    } finally {
      dir.cleanup();
      await smtp.close();
    }
  });

  it('a mail server that refuses gives a clear 503 page, and the log names no link', async () => {
    const smtp = await smtpServer({ rejectRcpt: true });
    let logs = '';
    const stream = new PassThrough();
    stream.on('data', (d) => (logs += d));
    const t = await webApp({ smtpUrl: `smtp://127.0.0.1:${smtp.port}`, mailer: undefined }, { logger: loggerOptions(stream) });
    try {
      const c = t.client();
      const r = await c.post('/signin', { email: 'bounce@example.com', csrf: csrfOf((await c.get('/signin')).text) });
      expect(r.status).toBe(503);
      expect(r.text).toContain('The sign-in mail could not be sent');
      await new Promise((done) => setTimeout(done, 50));
      expect(logs).toContain('sign-in mail not sent');
      expect(logs).not.toContain('token=');
      // Nor the address (a server's refusal may quote it; log-scrub.ts masks it then).
      expect(logs).not.toContain('bounce@example.com');
    } finally {
      await t.close();
      await smtp.close();
    }
  });
});

describe('the daemon process (built CLI)', () => {
  let dir: ReturnType<typeof tempDir>;
  beforeAll(() => {
    dir = tempDir();
  });
  afterAll(() => dir.cleanup());

  it('with stderr not a terminal (a pipe, the journal), prints where the mail went, never the link or address; `daemon outbox --last` prints the link', async () => {
    const daemon = await startDaemonProcess(['--data-dir', dir.dir]);
    try {
      const c = new WebClient(daemon.url);
      const sent = await c.post('/signin', { email: 'console@example.com', csrf: csrfOf((await c.get('/signin')).text) });
      expect(sent.status).toBe(200);
      const last = await run(process.execPath, [BIN, 'daemon', 'outbox', '--last', '--data-dir', dir.dir]);
      const printed = last.stdout.trim();
      expect(printed).toMatch(new RegExp(`^${daemon.url}/signin/verify\\?token=[A-Za-z0-9_-]{43}$`));
      const token = new URL(printed).searchParams.get('token')!;
      expect(daemon.stderr()).toMatch(/^sign-in mail saved as outbox\/\S+\.eml; print its link with: provenance daemon outbox --last --data-dir /m);
      const logLines = daemon.stderr().split('\n').filter((l) => l.startsWith('{'));
      expect(logLines.length).toBeGreaterThan(0);
      expect(daemon.stderr()).not.toContain(token);
      expect(daemon.stderr()).not.toContain('console@example.com');

      const json = JSON.parse((await run(process.execPath, [BIN, 'daemon', 'outbox', '--last', '--json', '--data-dir', dir.dir])).stdout);
      expect(json).toMatchObject({ to: 'console@example.com', link: printed });
      expect(readFileSync(json.file, 'utf8')).toContain(printed);
      // The printed link opens its page; its button signs in.
      expect((await openLink(c, printed)).signedIn?.location).toBe('/dashboard');
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
    }
  });

  it('refuses a bad --smtp-url, and --trust-proxy without --public-url, before starting (exit 2)', async () => {
    const bad = await run(process.execPath, [BIN, 'daemon', 'start', '--port', '0', '--data-dir', dir.dir, '--smtp-url', 'http://u:hunter2@mail.example']).catch((e) => e);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--smtp-url must start with smtp:// or smtps://');
    expect(bad.stderr).not.toContain('hunter2');
    const proxy = await run(process.execPath, [BIN, 'daemon', 'start', '--port', '0', '--data-dir', dir.dir, '--trust-proxy']).catch((e) => e);
    expect(proxy.code).toBe(2);
    expect(proxy.stderr).toContain('--trust-proxy needs --public-url');
  });
});
