// One daemon app for scripts/bench-observability.ts, with metrics and request logs each on or
// off: `node scripts/run-ts.mjs scripts/bench-observed-daemon.ts DATA_DIR metrics|no-metrics logs|no-logs`.
// Built with buildApp (the CLI has no switch to turn metrics off), listening on 127.0.0.1 only,
// with 100 keys on four custom accounts (written to DATA_DIR/keys.json) so the burst limit
// (300 a minute per key) never answers. Logs, when on, go to stderr at level info, as
// `provenance daemon start` writes them (bench-observability.ts makes stderr a file).
// Detection runs on the main thread (workers: 0): a bundled script does not find the built
// worker, and the metrics' and logs' cost per request is the same either way.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildApp, loggerOptions } from '../src/daemon/http/app.js';
import { sha256Hex } from '../src/daemon/accounts/key-format.js';

const [dataDir, metricsArg, logsArg] = process.argv.slice(2);
if (!dataDir || !/^(no-)?metrics$/.test(metricsArg ?? '') || !/^(no-)?logs$/.test(logsArg ?? '')) {
  throw new Error('usage: bench-observed-daemon.ts DATA_DIR metrics|no-metrics logs|no-logs');
}
const token = 'bench-token';
const app = await buildApp({
  dataDir,
  workers: 0,
  metrics: metricsArg === 'metrics',
  logger: logsArg === 'logs' ? loggerOptions(process.stderr, 'info') : false,
  adminTokenSha256: sha256Hex(token),
});
const keys: string[] = [];
for (let a = 0; a < 4; a++) {
  const email = `observed-${a}@example.test`;
  keys.push((await app.services.accounts.createAccount({ email, plan: 'custom', quota: 100_000_000 })).key.value);
  for (let i = 0; i < 24; i++) keys.push((await app.services.accounts.createKey(email)).value);
}
await app.services.store.commit();
writeFileSync(join(dataDir, 'keys.json'), JSON.stringify({ keys, token }));
await app.listen({ host: '127.0.0.1', port: 0 });
const address = app.server.address() as { port: number };
process.stdout.write(`listening on http://127.0.0.1:${address.port}\n`);
process.once('SIGTERM', () => {
  void app.close().then(() => process.exit(0));
});
