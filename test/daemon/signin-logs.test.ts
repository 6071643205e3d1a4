// No sign-in link (a live credential) and no e-mail address in any log line of a real daemon
// (the built CLI, as users run it), whichever way it runs (issue 34, item 9): in the foreground
// with its console not a terminal (stderr to a pipe, as systemd's journal takes it), in JSON and
// pretty log formats, and detached (daemon.log). The outbox's console line then names only the
// file the mail was saved in; the link with its address is printed only on a person's terminal
// (test/daemon/signin-mail.test.ts has that line). The whole sign-in is walked: the form, the
// link opened and used, a used link again, an unknown token, and the per-address mail limit.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { tempDir } from './helpers.js';
import { BIN, startDaemonProcess } from './process.js';
import { csrfOf, openLink, WebClient } from './signin-helpers.js';

const run = promisify(execFile);
const dirs: { cleanup(): void }[] = [];
afterAll(() => dirs.forEach((d) => d.cleanup()));

/** Walks every sign-in step for `email` on the daemon at `base`; returns the links' tokens. */
async function walkSignin(base: string, dataDir: string, email: string): Promise<string[]> {
  const c = new WebClient(base);
  const tokens: string[] = [];
  for (let i = 0; i < 6; i++) {
    // Five mails per address are sent, the sixth refused (its page names the address; no log may).
    const sent = await c.post('/signin', { email, csrf: csrfOf((await c.get('/signin')).text) });
    expect(sent.status).toBe(i < 5 ? 200 : 429);
    if (i < 5) {
      const { stdout } = await run(process.execPath, [BIN, 'daemon', 'outbox', '--last', '--data-dir', dataDir]);
      tokens.push(new URL(stdout.trim()).searchParams.get('token')!);
    }
  }
  const link = `${base}/signin/verify?token=${tokens[0]}`;
  expect((await openLink(c, link)).signedIn?.location).toBe('/dashboard');
  expect((await c.get(`/signin/verify?token=${tokens[0]}`)).status).toBe(410); // used
  expect((await c.get(`/signin/verify?token=${'A'.repeat(43)}`)).status).toBe(404); // unknown
  // A query string with an address and a token (a pasted link, say), from a browser signed out.
  expect((await new WebClient(base).get(`/signin?email=${encodeURIComponent(email)}&token=${tokens[1]}`)).status).toBe(200);
  return tokens;
}

function expectClean(text: string, email: string, tokens: string[]): void {
  expect(text).not.toContain(email);
  expect(text).not.toContain(email.split('@')[0]);
  for (const t of tokens) expect(text).not.toContain(t);
}

describe('a daemon whose console is not a terminal', () => {
  for (const format of ['json', 'pretty']) {
    it(`foreground, --log-format ${format}: stderr has no link and no address; the console line names the outbox file`, async () => {
      const dir = tempDir('prov-signin-logs-');
      dirs.push(dir);
      const daemon = await startDaemonProcess(['--data-dir', dir.dir, '--log-format', format]);
      const email = `journal-${format}@example.com`;
      let tokens: string[];
      try {
        tokens = await walkSignin(daemon.url, dir.dir, email);
      } finally {
        daemon.child.kill('SIGTERM');
        await daemon.exited;
      }
      const stderr = daemon.stderr();
      expect(stderr).toMatch(/^sign-in mail saved as outbox\/\S+\.eml; print its link with: provenance daemon outbox --last --data-dir \S+$/m);
      expect(stderr.split('\n').filter((l) => l.includes('/signin')).length).toBeGreaterThan(5); // the requests were logged
      expectClean(stderr + daemon.stdout(), email, tokens);
    }, 60_000);
  }

  it('detached: daemon.log has no link and no address', async () => {
    const dir = tempDir('prov-signin-logs-');
    dirs.push(dir);
    const started = await run(process.execPath, [BIN, 'daemon', 'start', '--detach', '--port', '0', '--data-dir', dir.dir]);
    const base = /listening on (\S+)/.exec(started.stdout)![1]!;
    const email = 'detached@example.com';
    let tokens: string[];
    try {
      tokens = await walkSignin(base, dir.dir, email);
    } finally {
      await run(process.execPath, [BIN, 'daemon', 'stop', '--data-dir', dir.dir]);
    }
    const log = readFileSync(join(dir.dir, 'daemon.log'), 'utf8');
    expect(log).toContain('sign-in mail saved as outbox/');
    expectClean(log + started.stdout + started.stderr, email, tokens);
  }, 60_000);
});
