// The configuration files docs/SELF-HOSTING.md shows, checked by the tools that read them where
// this machine has them (Debian: apt-get install nginx-light caddy prometheus; systemd-analyze
// comes with systemd), each skipped with a notice where it does not: the nginx site inside a
// minimal nginx.conf (`nginx -t`, a self-signed certificate in place of the Let's Encrypt
// paths), the Caddyfile (`caddy validate`), the Prometheus scrape config and alert rules
// (`promtool check config` / `check rules`; parsed as YAML always), the systemd unit
// (`systemd-analyze verify`). And the metric names the page uses are ones the daemon registers.
// The PostgreSQL commands run in test/postgres/self-hosting.test.ts.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
// yaml@2 comes with @fastify/swagger (a dependency of the daemon).
import { parse } from 'yaml';
import { ROOT } from './helpers/corpus.js';
import { tempDir } from './daemon/helpers.js';

const GUIDE = readFileSync(join(ROOT, 'docs', 'SELF-HOSTING.md'), 'utf8');
const blocks = (lang: string) => [...GUIDE.matchAll(/^```(\S*)\n([\s\S]*?)^```$/gm)].filter((m) => m[1] === lang).map((m) => m[2]!);
const one = (lang: string) => {
  const found = blocks(lang);
  expect(found, lang).toHaveLength(1);
  return found[0]!;
};

const has = (tool: string, ...args: string[]) => spawnSync(tool, args, { stdio: 'ignore' }).status === 0;
const tools = {
  nginx: has('nginx', '-v'),
  caddy: has('caddy', 'version'),
  promtool: has('promtool', '--version'),
  systemd: has('systemd-analyze', '--version'),
  openssl: has('openssl', 'version'),
};
for (const [tool, found] of Object.entries(tools)) if (!found) console.log(`self-hosting configs: ${tool} is not installed; its check is skipped`);

const work = tempDir('prov-guide-configs-');
afterAll(() => work.cleanup());

function run(command: string, args: string[], env: NodeJS.ProcessEnv = {}): string {
  const r = spawnSync(command, args, { cwd: work.dir, encoding: 'utf8', env: { ...process.env, ...env } });
  expect(r.status, `${command} ${args.join(' ')}\n${r.stdout}\n${r.stderr}`).toBe(0);
  return `${r.stdout}${r.stderr}`;
}

describe('docs/SELF-HOSTING.md configurations', () => {
  it.skipIf(!tools.nginx || !tools.openssl)('nginx -t accepts the site configuration', () => {
    const dir = join(work.dir, 'nginx');
    mkdirSync(join(dir, 'logs'), { recursive: true });
    run('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '1', '-subj', '/CN=provenance.example.com']);
    const site = one('nginx')
      .replace('/etc/letsencrypt/live/provenance.example.com/fullchain.pem', join(dir, 'cert.pem'))
      .replace('/etc/letsencrypt/live/provenance.example.com/privkey.pem', join(dir, 'key.pem'));
    writeFileSync(join(dir, 'provenance.conf'), site);
    writeFileSync(
      join(dir, 'nginx.conf'),
      `pid ${dir}/nginx.pid;\nerror_log ${dir}/logs/error.log;\nevents {}\nhttp {\n  access_log off;\n  client_body_temp_path ${dir}/body;\n  proxy_temp_path ${dir}/proxy;\n  include ${dir}/provenance.conf;\n}\n`,
    );
    expect(run('nginx', ['-t', '-c', join(dir, 'nginx.conf'), '-p', dir])).toMatch(/syntax is ok/);
  });

  it.skipIf(!tools.caddy)('caddy validate accepts the Caddyfile', () => {
    const dir = join(work.dir, 'caddy');
    mkdirSync(dir);
    writeFileSync(join(dir, 'Caddyfile'), one('caddyfile'));
    expect(run('caddy', ['validate', '--adapter', 'caddyfile', '--config', join(dir, 'Caddyfile')], { HOME: dir, XDG_DATA_HOME: dir, XDG_CONFIG_HOME: dir })).toMatch(/Valid configuration/);
  });

  it('the Prometheus blocks are YAML: a scrape config and alert rules', () => {
    const [scrape, rules] = blocks('yaml').map((b) => parse(b));
    expect(scrape.scrape_configs[0].job_name).toBe('provenance');
    expect(rules.groups[0].rules.map((r: { alert: string }) => r.alert)).toEqual(
      expect.arrayContaining(['ProvenanceStoreErrors', 'ProvenanceHigh5xxRate', 'ProvenanceMediaBudgetSaturated']),
    );
  });

  it.skipIf(!tools.promtool)('promtool accepts the scrape config and the alert rules', () => {
    const [scrape, rules] = blocks('yaml');
    const rulesFile = join(work.dir, 'provenance-rules.yml');
    writeFileSync(rulesFile, rules!);
    writeFileSync(join(work.dir, 'prometheus.yml'), scrape!.replace('/etc/prometheus/rules/provenance.yml', rulesFile));
    expect(run('promtool', ['check', 'rules', rulesFile])).toMatch(/SUCCESS/);
    expect(run('promtool', ['check', 'config', join(work.dir, 'prometheus.yml')])).toMatch(/SUCCESS: 1 rule files found/);
    // And the alerts fire on the series they watch: store errors on the key lookup (the first
    // store call of a request, so the first to fail when the database goes), 9% of answers 5xx,
    // the media budget 95% used with requests waiting, a daemon not scraped.
    writeFileSync(join(work.dir, 'rules-test.yml'), RULES_TEST);
    expect(run('promtool', ['test', 'rules', join(work.dir, 'rules-test.yml')])).toMatch(/SUCCESS/);
  });

  it.skipIf(!tools.systemd)('systemd-analyze verify accepts the unit', () => {
    const dir = join(work.dir, 'systemd');
    mkdirSync(dir);
    // The unit names the installed command; here, the clone's.
    writeFileSync(join(dir, 'provenance@.service'), one('ini').replace('/usr/local/bin/provenance', join(ROOT, 'bin', 'provenance.js')));
    run('systemd-analyze', ['verify', join(dir, 'provenance@a.service')]);
  });

  it('every provenance_ metric the page names is one the daemon registers', async () => {
    const dir = join(ROOT, 'src', 'daemon', 'http');
    const sources = readdirSync(dir)
      .filter((f) => /^metrics.*\.ts$/.test(f))
      .map((f) => readFileSync(join(dir, f), 'utf8'))
      .join('\n');
    // The daemon's own, as metrics.ts names them (`${PREFIX}http_requests_total`), and Node.js's
    // process metrics, which prom-client's collectDefaultMetrics adds under the same prefix.
    const own = [...sources.matchAll(/\$\{PREFIX\}([a-z_]+)`/g)].map((m) => `provenance_${m[1]}`);
    const { Registry, collectDefaultMetrics } = await import('prom-client');
    const defaults = new Registry();
    collectDefaultMetrics({ register: defaults, prefix: 'provenance_' });
    const registered = new Set([...own, ...(await defaults.getMetricsAsJSON()).map((m) => m.name)]);
    expect(own.length).toBeGreaterThan(3);
    // The metrics section: its table, the scrape config, the alert rules.
    const section = GUIDE.slice(GUIDE.indexOf('## Metrics and alerts'), GUIDE.indexOf('## Upgrades'));
    expect(section.length).toBeGreaterThan(1000);
    const named = new Set([...section.matchAll(/\bprovenance_[a-z_]+[a-z]\b/g)].map((m) => m[0]));
    expect(named.size).toBeGreaterThan(3);
    // Histograms are registered by their base name; Prometheus adds _bucket, _sum and _count.
    const missing = [...named].filter((n) => !registered.has(n.replace(/_(bucket|sum|count)$/, '')));
    expect(missing).toEqual([]);
  });

  it('the Dockerfile runs as a user without root, from production dependencies, with /healthz as its health check', () => {
    const docker = one('dockerfile');
    expect(docker).toMatch(/^FROM node:22-bookworm-slim$/m);
    expect(docker).toMatch(/npm ci --omit=dev/);
    expect(docker).toMatch(/^USER node$/m);
    expect(docker).toMatch(/^HEALTHCHECK .*\n.*\/healthz/m);
    expect(docker).toMatch(/^VOLUME \["\/data"\]$/m);
    expect(existsSync(join(ROOT, 'package-lock.json'))).toBe(true);
  });
});

/** promtool's unit test of the alert rules (`promtool test rules`). */
const RULES_TEST = `rule_files:
  - provenance-rules.yml
evaluation_interval: 1m
tests:
  - interval: 1m
    input_series:
      - series: 'provenance_store_operation_errors_total{instance="a:9464",job="provenance",store="postgres",operation="keyByHash"}'
        values: '0+6x10'
      - series: 'provenance_http_requests_total{instance="a:9464",job="provenance",method="POST",route="/v1/detect",status="500"}'
        values: '0+6x10'
      - series: 'provenance_http_requests_total{instance="a:9464",job="provenance",method="POST",route="/v1/detect",status="200"}'
        values: '0+60x10'
      - series: 'provenance_media_budget_bytes{instance="a:9464",job="provenance"}'
        values: '1000x20'
      - series: 'provenance_media_budget_in_use_bytes{instance="a:9464",job="provenance"}'
        values: '950x20'
      - series: 'provenance_media_budget_waiting_requests{instance="a:9464",job="provenance"}'
        values: '2x20'
      - series: 'provenance_http_errors_total{instance="a:9464",job="provenance",route="/v1/detect",type="server_busy"}'
        values: '0+1x20'
      - series: 'up{instance="b:9464",job="provenance"}'
        values: '0x10'
    alert_rule_test:
      - eval_time: 5m
        alertname: ProvenanceQuotaStoreErrors
        exp_alerts:
          - exp_labels: {severity: page, instance: "a:9464"}
            exp_annotations:
              summary: "provenance a:9464: the store fails the calls that check keys and count quota"
              description: "100m failed key, burst or quota store calls a second: /v1/detect answers 500 internal_error. Check PostgreSQL and the daemon's log."
      - eval_time: 8m
        alertname: ProvenanceHigh5xxRate
        exp_alerts:
          - exp_labels: {severity: page, instance: "a:9464"}
            exp_annotations:
              summary: "provenance a:9464: more than 5% of requests answered 5xx"
              description: "9.091% of requests got a 5xx over 5 minutes (500 store failures, 503 server_busy or storage_full); provenance_http_errors_total says which."
      - eval_time: 15m
        alertname: ProvenanceMediaBudgetSaturated
        exp_alerts:
          - exp_labels: {severity: warn, instance: "a:9464", job: provenance}
            exp_annotations:
              summary: "provenance a:9464: the media memory budget is full, requests queue"
              description: "Requests wait for --media-memory; past --media-wait they get 503 server_busy. Raise --media-memory (with the memory to back it) or add a daemon."
      - eval_time: 5m
        alertname: ProvenanceDown
        exp_alerts:
          - exp_labels: {severity: page, instance: "b:9464", job: provenance}
            exp_annotations:
              summary: "provenance b:9464 does not answer scrapes"
`;
