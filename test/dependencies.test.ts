// Dependencies on the Node versions the README promises (issue 17, point 8; issue 40, 22: the
// floor is Node 22): `npm install` on Node 22 must not warn EBADENGINE, and CI runs the suite on
// 22 and 24 only.
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { ROOT } from './helpers/corpus.js';

const NODE_FLOOR = 22;

/** The lowest major version an `engines.node` range like ">=18" or "^20 || >=22" admits; 0 for `*` (any). */
function lowestMajor(range: string): number {
  const majors = [...range.matchAll(/(\d+)(?:\.\d+)*/g)].map((m) => Number(m[1]));
  return majors.length ? Math.min(...majors) : 0;
}

describe(`the installed tree supports Node ${NODE_FLOOR}`, () => {
  it("package.json's engines is the floor", () => {
    expect(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).engines).toEqual({ node: `>=${NODE_FLOOR}` });
  });

  it(`every installed package admits Node ${NODE_FLOOR} in its engines (what npm checks for EBADENGINE)`, () => {
    const lock = JSON.parse(readFileSync(join(ROOT, 'package-lock.json'), 'utf8')) as { packages: Record<string, { engines?: { node?: string }; dev?: boolean }> };
    const refusing = Object.entries(lock.packages)
      .filter(([path, p]) => path && typeof p.engines?.node === 'string' && lowestMajor(p.engines.node) > NODE_FLOOR)
      .map(([path, p]) => `${path} (node ${p.engines!.node})`);
    expect(refusing).toEqual([]);
  });

  it('light-my-request (fastify inject) sends cookies with the cookie package it asks for (no override since the floor is 22)', async () => {
    expect(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).overrides.cookie).toBeUndefined();
    const app = Fastify();
    app.get('/echo', async (request) => ({ cookie: request.headers.cookie }));
    const res = await app.inject({ method: 'GET', url: '/echo', cookies: { session: 'a b', other: '1' } });
    expect(res.json()).toEqual({ cookie: 'session=a%20b; other=1' });
    await app.close();
  });
});

describe('.ci/run', () => {
  const run = readFileSync(join(ROOT, '.ci', 'run'), 'utf8');

  /**
   * The lines of .ci/run that choose the Node versions, run by bash with `node` on PATH a stand-in
   * that reports `version`: the versions fetched from the registry (or the refusal).
   */
  function chosenVersions(version: string) {
    const own = /^own_major=.*\nif \[[\s\S]*?\nfi\n/m.exec(run)?.[0];
    const choice = /^registry_versions=\(\)\n.*\n/m.exec(run)?.[0];
    expect(own, 'the own-version check').toBeDefined();
    expect(choice, 'the version choice').toBeDefined();
    const bin = mkdtempSync(join(tmpdir(), 'prov-ci-node-'));
    try {
      const major = version.slice(1).split('.')[0];
      writeFileSync(join(bin, 'node'), `#!/bin/sh\n[ "$1" = --version ] && { echo ${version}; exit 0; }\n[ "$1" = -p ] && { echo ${major}; exit 0; }\nexit 99\n`, { mode: 0o755 });
      return spawnSync('bash', ['-c', `set -euo pipefail\n${own}${choice}echo "\${registry_versions[*]}"`], {
        encoding: 'utf8',
        env: { ...process.env, PATH: `${bin}:${process.env.PATH}` },
      });
    } finally {
      rmSync(bin, { recursive: true, force: true });
    }
  }

  it("runs the suite on Node 22 and 24 only: each but the machine's own from the registry (a machine on 20 fetches both)", () => {
    for (const [own, fetched] of [
      ['v20.20.2', '22 24'],
      ['v22.12.0', '24'],
      ['v24.1.0', '22'],
      ['v26.0.0', '22 24'],
    ] as const) {
      const chosen = chosenVersions(own);
      expect(chosen.status, `${own}: ${chosen.stderr}`).toBe(0);
      expect(chosen.stdout, own).toBe(`${fetched}\n`);
    }
    // The check reads the real major version the way the stand-in answers it.
    const major = execFileSync('bash', ['-c', /^own_major=.*$/m.exec(run)![0] + '\necho "$own_major"'], { encoding: 'utf8' });
    expect(major).toBe(`${process.versions.node.split('.')[0]}\n`);
    // Every chosen version: the registry's node package; npm ci on 22, the suite on 24, then on 22.
    expect(run).toMatch(/for version in "\$\{registry_versions\[@\]\}"; do\n.*"node@\$\{version\}"\n/);
    expect(run).toContain('PATH="$node22:$PATH" npm ci --no-audit --no-fund\n');
    expect(run).toContain('PATH="$node24:$PATH" "$node24/node" node_modules/vitest/vitest.mjs run\n');
  });

  it('refuses, in one line, a machine whose Node is too old to run npm', () => {
    const chosen = chosenVersions('v18.19.0');
    expect(chosen.status).toBe(1);
    expect(chosen.stderr).toBe(".ci/run: this machine's Node is v18.19.0; CI needs Node 20 or newer to run npm, which fetches Node 22 and 24 (install it, then run .ci/run again).\n");
  });

  it("ends with exactly the README's test command", () => {
    const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
    const testCommand = /Run the tests:\n\n```sh\n(.+)\n```/.exec(readme)?.[1];
    const lastCommand = run
      .trim()
      .split('\n')
      .filter((l) => l.trim() && !l.trim().startsWith('#'))
      .at(-1);
    expect(testCommand).toBe('npm test');
    expect(lastCommand).toBe(testCommand);
    // ... on Node 22 (the floor), first on PATH from there on, whatever the machine's own Node is.
    const commands = run.trim().split('\n').filter((l) => l.trim() && !l.trim().startsWith('#'));
    expect(commands.slice(-3)).toEqual(['export PATH="$node22:$PATH"', 'echo "== the suite on Node $(node --version): npm test"', 'npm test']);
    expect(run).toMatch(/^node22="\$\(node_bin 22\)"$/m);
  });
});
