// Store and SMTP URLs as they are shown and saved (issue 34, item 7): every form a secret takes
// in them masked by one function (src/engine/masked-url.ts), and every place that shows a
// store URL uses it: the store's refusals of a bad --store (daemon start, migrate, the admin
// commands), a refused connection, the start's configuration line. The places that need a
// running PostgreSQL (store.json, daemon.log, `daemon migrate`'s answer) are in
// test/postgres/store-url-secrets.test.ts.
import { createServer } from 'node:net';
import { readdirSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { effectiveConfiguration } from '../../src/commands/daemon-env.js';
import { scrubSecrets } from '../../src/daemon/http/log-scrub.js';
import { maskUrlSecrets } from '../../src/engine/masked-url.js';
import { checkPostgresUrl } from '../../src/daemon/store/pg-store.js';
import { runCli } from '../helpers/run-cli.js';
import { tempDir } from './helpers.js';

describe('maskUrlSecrets: each form of a secret', () => {
  it.each([
    ['the userinfo password', 'postgres://app:s3cret@db:5432/prov', 'postgres://app:***@db:5432/prov'],
    ['?password=', 'postgres://app@db/prov?password=s3cret', 'postgres://app@db/prov?password=***'],
    ['?sslpassword= (the client key passphrase) beside harmless parameters', 'postgres://app@db/prov?sslmode=verify-full&sslkey=/k.pem&sslpassword=s3cret', 'postgres://app@db/prov?sslmode=verify-full&sslkey=%2Fk.pem&sslpassword=***'],
    ['both, and a parameter given twice', 'postgresql://app:s3cret@db/prov?password=s3cret&password=s3cret2', 'postgresql://app:***@db/prov?password=***'],
    ['a passphrase, a token, an api key', 'smtp://mail:587/?passphrase=s3cret&token=s3cret&api_key=s3cret', 'smtp://mail:587/?passphrase=***&token=***&api_key=***'],
    ['a password with an encoded @', 'postgres://app:p%40ss-s3cret@db/prov', 'postgres://app:***@db/prov'],
    ['an SMTP URL', 'smtps://user:s3cret@mail.example.com:465', 'smtps://user:***@mail.example.com:465'],
  ])('%s', (_name, url, masked) => {
    expect(maskUrlSecrets(url)).toBe(masked);
  });

  it.each([
    ['an unparseable URL with a password', 'postgres://app:s3cret@db:notaport/prov?password=s3cret'],
    ['a key=value connection string', "host=db user=app password=s3cret dbname=prov"],
    ['a quoted key=value password', "host=db password='s3 cret' sslpassword=s3cret"],
    ['no scheme, a query', 'db/prov?password=s3cret&sslpassword=s3cret'],
  ])('%s: no secret left', (_name, text) => {
    const masked = maskUrlSecrets(text);
    expect(masked).not.toMatch(/s3/);
    expect(masked).toContain('***');
  });

  it('an https:// input (user: true): the user name too, and the signatures of signed URLs', () => {
    expect(maskUrlSecrets('https://TOKEN@host/a.jpg', { user: true })).toBe('https://***@host/a.jpg');
    expect(maskUrlSecrets('https://TOKEN@host/a.jpg')).toBe('https://TOKEN@host/a.jpg'); // a database's user name is only a name
    expect(maskUrlSecrets('https://u:pw@host/a.jpg?sig=S1&X-Amz-Signature=S2&X-Amz-Credential=S3&X-Amz-Security-Token=S4&Signature=S5&auth=S6&w=640', { user: true })).toBe(
      'https://***:***@host/a.jpg?sig=***&X-Amz-Signature=***&X-Amz-Credential=***&X-Amz-Security-Token=***&Signature=***&auth=***&w=640',
    );
    // Names that merely contain the letters are not secrets.
    expect(maskUrlSecrets('https://host/a.jpg?design=1&author=me', { user: true })).toBe('https://host/a.jpg?design=1&author=me');
  });

  it('text without a secret is unchanged, byte for byte', () => {
    for (const text of ['postgres://app@db:5432/prov?sslmode=require&application_name=a%20b', 'smtp://mail.example.com:25', '/var/lib/provenance', 'host=db dbname=prov']) {
      expect(maskUrlSecrets(text)).toBe(text);
    }
  });

  it("the store's refusals, the configuration line and the log's last filter use it", () => {
    expect(() => checkPostgresUrl('postgres://app@db:notaport/prov?password=s3cret')).toThrow(/password=\*\*\*/);
    expect(checkPostgresUrl('postgres://app:s3cret@db/prov?sslpassword=s3cret')).toBe('postgres://app:***@db/prov?sslpassword=***');
    const config = effectiveConfiguration({ store: 'postgres://app@db/prov?password=s3cret', smtpUrl: 'smtp://u:s3cret@mail/?token=s3cret' });
    expect(JSON.stringify(config)).not.toMatch(/s3cret/);
    expect(scrubSecrets('could not open postgres://app@db/prov?password=s3cret&sslpassword=s3cret2 now')).not.toMatch(/s3cret/);
  });
});

describe('the CLI shows no secret of a --store URL it refuses', () => {
  let refusedPort: number;
  beforeAll(async () => {
    refusedPort = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const port = (s.address() as { port: number }).port;
        s.close(() => resolve(port));
      });
    });
  });

  it.each([
    ['a refused connection', () => `postgres://postgres:s3cret-u@127.0.0.1:${refusedPort}/x?password=s3cret-q&sslpassword=s3cret-k`],
    ['a malformed URL', () => 'postgres://postgres:s3cret-u@127.0.0.1:port/x?password=s3cret-q'],
    ['another scheme', () => 'mysql://root:s3cret-u@127.0.0.1/db?password=s3cret-q'],
    ['a key=value string', () => 'host=127.0.0.1 user=postgres password=s3cret-q dbname=x'],
  ])('%s: daemon start, migrate, accounts list', async (_name, url) => {
    const dir = tempDir('prov-masked-url-');
    try {
      for (const args of [
        ['daemon', 'start', '--port', '0', '--data-dir', dir.dir, '--store', url()],
        ['daemon', 'migrate', '--store', url()],
        ['daemon', 'accounts', 'list', '--store', url()],
      ]) {
        const r = await runCli(args);
        expect(r.code, args.join(' ')).toBe(2);
        expect(r.stderr).toMatch(/\*\*\*/);
        expect(r.stderr + r.stdout).not.toMatch(/s3cret/);
      }
      expect(readdirSync(dir.dir)).toEqual([]);
    } finally {
      dir.cleanup();
    }
  });
});
