// `--catalogue hosted` (issue 23): the CLI flag, the `catalogue` setting and the daemon's flag
// serve and run exactly the hosted five; a bad name is a usage error that says which names exist.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DETECTOR_IDS, HOSTED_DETECTOR_IDS } from '../src/types.js';
import { tinyJpeg } from './fixtures/make.js';
import { parseLines, runBin, runCli } from './helpers/run-cli.js';
import { startDaemonProcess } from './daemon/process.js';

let dir: string;
let photo: string;
let config: string;
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'prov-catalogue-'));
  photo = join(dir, 'photo.jpg');
  writeFileSync(photo, tinyJpeg({ seed: 5 }));
  config = join(dir, 'config');
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const env = () => ({ PROVENANCE_CONFIG_DIR: config });

describe('check --catalogue', () => {
  it('full by default: all seven checks', async () => {
    const run = await runCli(['check', '--json', photo], undefined, env());
    expect(run.code).toBe(0);
    expect(parseLines(run.stdout)[0].checks_run).toEqual([...DETECTOR_IDS]);
  });

  it('hosted: exactly the hosted five, on one file and on a folder (the worker pool)', async () => {
    writeFileSync(join(dir, 'second.jpg'), tinyJpeg({ seed: 6 }));
    for (const input of [photo, dir]) {
      const run = await runCli(['check', '--json', '--catalogue', 'hosted', input], undefined, env());
      expect(run.code).toBe(0);
      for (const line of parseLines(run.stdout)) expect(line.checks_run).toEqual([...HOSTED_DETECTOR_IDS]);
    }
  });

  it('refuses a check or a gate outside the hosted five, and an unknown catalogue name', async () => {
    const checks = await runCli(['check', '--catalogue', 'hosted', '--checks', 'generator_metadata', photo], undefined, env());
    expect(checks.code).toBe(2);
    expect(checks.stderr).toBe(
      'provenance: --checks: Check id "generator_metadata" is not in the hosted catalogue. Valid check ids: c2pa, watermark_a, watermark_b, open_content_seal, camera_reference.\n',
    );
    const gate = await runCli(['check', '--catalogue', 'hosted', '--fail-on', 'invisible_watermark=found', photo], undefined, env());
    expect(gate.code).toBe(2);
    expect(gate.stderr).toBe(
      'provenance: --fail-on invisible_watermark=found: the invisible_watermark check is not in the hosted catalogue (--catalogue hosted), so it could never fire.\n',
    );
    const name = await runCli(['check', '--catalogue', 'everything', photo], undefined, env());
    expect(name.code).toBe(2);
    expect(name.stderr).toBe('provenance: --catalogue: Unknown catalogue "everything": use full (every detector, the default) or hosted (the hosted service\'s five).\n');
  });

  it('the catalogue setting is the default, and the flag wins over it', async () => {
    const own = { PROVENANCE_CONFIG_DIR: join(dir, 'setting') };
    expect((await runCli(['config', 'set', 'catalogue', 'hosted'], undefined, own)).code).toBe(0);
    expect((await runCli(['config', 'get', 'catalogue'], undefined, own)).stdout).toBe('hosted\n');
    const bySetting = await runCli(['check', '--json', photo], undefined, own);
    expect(parseLines(bySetting.stdout)[0].checks_run).toEqual([...HOSTED_DETECTOR_IDS]);
    const byFlag = await runCli(['check', '--json', '--catalogue', 'full', photo], undefined, own);
    expect(parseLines(byFlag.stdout)[0].checks_run).toEqual([...DETECTOR_IDS]);
    const listed = await runCli(['detectors', '--json'], undefined, own);
    expect(JSON.parse(listed.stdout).detectors.map((d: { id: string }) => d.id)).toEqual([...HOSTED_DETECTOR_IDS]);
    const bad = await runCli(['config', 'set', 'catalogue', 'some'], undefined, own);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('catalogue is full or hosted.');
  });
});

describe('detectors --catalogue', () => {
  it('lists the five with hosted, seven without', async () => {
    const hosted = await runCli(['detectors', '--json', '--catalogue', 'hosted'], undefined, env());
    expect(JSON.parse(hosted.stdout).detectors.map((d: { id: string }) => d.id)).toEqual([...HOSTED_DETECTOR_IDS]);
    const full = await runCli(['detectors', '--json'], undefined, env());
    expect(JSON.parse(full.stdout).detectors.map((d: { id: string }) => d.id)).toEqual([...DETECTOR_IDS]);
  });
});

describe('daemon start --catalogue', () => {
  it('hosted: the daemon serves the five', async () => {
    const daemon = await startDaemonProcess(['--data-dir', join(dir, 'daemon'), '--catalogue', 'hosted'], env());
    try {
      const body = (await (await fetch(`${daemon.url}/v1/detectors`)).json()) as { detectors: { id: string }[] };
      expect(body.detectors.map((d) => d.id)).toEqual([...HOSTED_DETECTOR_IDS]);
    } finally {
      daemon.child.kill('SIGTERM');
      await daemon.exited;
    }
  });

  it('an unknown name is a usage error before anything starts', async () => {
    const run = await runBin(['daemon', 'start', '--port', '0', '--data-dir', join(dir, 'never'), '--catalogue', 'nope'], { env: env() });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('--catalogue: Unknown catalogue "nope"');
  });
});
