// The daemon the fuzz suite hammers, in a process of its own so that its RSS can be read from
// /proc. URL downloads can never leave the machine: every name resolves to 127.0.0.2 without
// DNS, and the address rule refuses every address, so a `url` ends in 422 before any connect.
// The admin endpoint is mounted with a token of this run (printed for the test), and sign-in
// mails go to the data dir's outbox, where the test reads their links.
// Run with: node scripts/run-ts.mjs test/daemon/fuzz/server.ts DATA_DIR KEYS
// Prints one JSON line: { url, pid, keys, adminToken }.
import { randomBytes } from 'node:crypto';
import { buildApp } from '../../../src/daemon/http/app.js';
import { sha256Hex } from '../../../src/daemon/accounts/key-format.js';

const [dataDir, count = '20'] = process.argv.slice(2);
if (!dataDir) throw new Error('usage: server.ts DATA_DIR [KEYS]');
const adminToken = randomBytes(32).toString('base64url');
const app = await buildApp({
  dataDir,
  workers: 0,
  store: { durable: false },
  resolver: async () => [{ address: '127.0.0.2', family: 4 }],
  addressPolicy: () => false,
  downloadTimeoutMs: 2_000,
  adminTokenSha256: sha256Hex(adminToken),
  // Every request comes from 127.0.0.1: the per-client sign-in limit (30 per 15 minutes) would
  // end the form's accepted path after 30 requests. The per-address limit stays as shipped.
  web: { signinLimits: { perClient: { limit: 1_000_000, windowMs: 15 * 60 * 1000 } } },
});
const keys: string[] = [];
for (let i = 0; i < Number(count); i++) {
  // Custom plans: 300 requests a minute per key, and a quota the run cannot use up.
  const { key } = await app.services.accounts.createAccount({ email: `fuzz-${i}@example.test`, plan: 'custom', quota: 1_000_000 });
  keys.push(key.value);
}
await app.services.store.commit();
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address();
if (!address || typeof address === 'string') throw new Error('no address');
process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${address.port}`, pid: process.pid, keys, adminToken })}\n`);
const stop = () => app.close().then(() => process.exit(0));
process.on('SIGTERM', stop);
// The test asks for a full collection before it reads RSS, so that garbage not yet collected is
// not taken for memory the daemon holds (run with --expose-gc). A memory-reducing one (what V8's
// memory reducer runs by itself once a process is idle for 8 s): on Node 24 an ordinary one leaves
// the young generation's freed pages in V8's page pool, resident (measured: RSS 99 -> 176 MB with
// the heap in use 17 -> 22 MB; a memory-reducing collection gives 88 -> 118 MB).
process.on('SIGUSR2', () => {
  (globalThis as { gc?: (options: object) => void }).gc?.({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  process.stdout.write('gc\n');
});
process.on('SIGINT', stop);
