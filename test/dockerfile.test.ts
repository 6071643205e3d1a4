// The repository's Dockerfile (issue 40, 16), and the docs that show it or run it: docker is not
// on this machine, so nothing is built here (docs/SELF-HOSTING.md "What was verified" says what
// was run); what can be held without it is. docs/SELF-HOSTING.md shows the Dockerfile and its
// .dockerignore as they are; its paths are the package's (what package.json ships, where its
// command is); its ENTRYPOINT is the package's command, so the daemon's CMD and docs/SCALE.md's
// Kubernetes `args` are command lines of the CLI, every flag one the command has; the worker's
// Deployment gives the worker the CPUs it asks for; the stop timeouts cover the batches a worker
// holds; `--lease` is scan start's. And SCALE.md's opening figures are PERFORMANCE.md's.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { registerDaemonCommands } from '../src/commands/daemon-cli.js';
import { envNameOf } from '../src/commands/daemon-env.js';
import { ROOT } from './helpers/corpus.js';
import { runCli } from './helpers/run-cli.js';

const read = (file: string) => readFileSync(join(ROOT, file), 'utf8');
const DOCKERFILE = read('Dockerfile');
const PACKAGE = JSON.parse(read('package.json')) as { bin: Record<string, string>; files: string[]; engines: { node: string }; scripts: Record<string, string> };
const GUIDE = read('docs/SELF-HOSTING.md');
const SCALE = read('docs/SCALE.md');

/** The fenced blocks of `text` in language `lang`. */
const blocks = (text: string, lang: string) => [...text.matchAll(/^```(\S*)\n([\s\S]*?)^```$/gm)].filter((m) => m[1] === lang).map((m) => m[2]!);

/** The Dockerfile's instructions, `\` continuations joined, comments left out. */
const instructions = DOCKERFILE.replace(/\\\n\s*/g, '')
  .split('\n')
  .filter((l) => l.trim() && !l.startsWith('#'));
const all = (name: string) => instructions.filter((l) => l.startsWith(`${name} `)).map((l) => l.slice(name.length + 1));
/** Its two stages: build, then run. */
const runStage = instructions.slice(instructions.findIndex((l, i) => i > 0 && l.startsWith('FROM ')));
const inRun = (name: string) => runStage.filter((l) => l.startsWith(`${name} `)).map((l) => l.slice(name.length + 1));
const exec = (name: string): string[] => JSON.parse(inRun(name).at(-1)!);

/** `provenance daemon start`'s long flags. */
function daemonStartFlags(): Map<string, import('commander').Option> {
  const program = new Command();
  registerDaemonCommands(program, { stdin: process.stdin, stdout: process.stdout, stderr: process.stderr, env: {} }, () => {});
  const start = program.commands.find((c) => c.name() === 'daemon')!.commands.find((c) => c.name() === 'start')!;
  return new Map(start.options.map((o) => [o.long!, o] as const));
}

/** The long flags a command's --help lists. */
async function helpFlags(args: string[]): Promise<string[]> {
  const help = await runCli([...args, '--help']);
  expect(help.code).toBe(0);
  return [...help.stdout.matchAll(/^ {2}(?:-\w, )?(--[a-z-]+)/gm)].map((m) => m[1]!);
}

describe('the Dockerfile', () => {
  it('is what docs/SELF-HOSTING.md shows, and so is its .dockerignore', () => {
    expect(blocks(GUIDE, 'dockerfile')).toEqual([DOCKERFILE]);
    const ignore = read('.dockerignore');
    const shown = GUIDE.slice(GUIDE.indexOf('### Docker'));
    expect(blocks(shown, 'text')[0]).toBe(ignore);
    // The host's builds and dependencies stay out of the image.
    for (const kept of ['node_modules', 'dist', '.git']) expect(ignore.split('\n')).toContain(kept);
  });

  it("builds on the Node of package.json's floor, with the package's own scripts", () => {
    const floor = /^>=(\d+)$/.exec(PACKAGE.engines.node)![1];
    expect(all('FROM').map((f) => f.split(' ')[0])).toEqual([`node:${floor}-bookworm-slim`, `node:${floor}-bookworm-slim`]);
    for (const run of all('RUN')) for (const [, script] of run.matchAll(/npm run ([\w:-]+)/g)) expect(PACKAGE.scripts[script!], script).toBeDefined();
    expect(inRun('RUN').some((r) => r.includes('npm ci --omit=dev'))).toBe(true);
    expect(inRun('USER')).toEqual(['node']);
  });

  it("runs from what the package ships (package.json files) and links the package's command onto PATH", () => {
    const workdir = inRun('WORKDIR').at(-1)!;
    const copied = inRun('COPY').map((c) => c.split(' ').at(-1)!.replace(/^\.\//, ''));
    for (const shipped of PACKAGE.files) expect(copied, shipped).toContain(shipped);
    const [name, target] = Object.entries(PACKAGE.bin)[0]!;
    expect(inRun('RUN').join('\n')).toContain(`ln -s ${join(workdir, target)} /usr/local/bin/${name}`);
    expect(exec('ENTRYPOINT')).toEqual([name]);
  });

  it("CMD is the daemon, every flag one of daemon start's; the metrics address comes by its variable", () => {
    const cmd = exec('CMD');
    expect(cmd.slice(0, 2)).toEqual(['daemon', 'start']);
    const flags = daemonStartFlags();
    for (const flag of cmd.filter((a) => a.startsWith('--'))) expect(flags.has(flag), flag).toBe(true);
    const metrics = envNameOf(flags.get('--metrics-listen')!)!;
    expect(DOCKERFILE).toContain(metrics);
    expect(blocks(GUIDE, 'sh').find((b) => b.includes('docker run'))).toContain(`-e ${metrics}=`);
  });
});

describe("docs/SCALE.md's workers", () => {
  const deployment = parse(blocks(SCALE, 'yaml')[0]!) as {
    spec: { template: { spec: { terminationGracePeriodSeconds: number; containers: { image: string; args: string[]; resources: { requests: { cpu: string }; limits: { cpu: string } } }[] } } };
  };
  const [container] = deployment.spec.template.spec.containers;

  it("the Kubernetes args run under the Dockerfile's ENTRYPOINT as `provenance scan worker`, every flag the worker's", async () => {
    const command = [...exec('ENTRYPOINT'), ...container!.args];
    expect(command.slice(0, 3)).toEqual(['provenance', 'scan', 'worker']);
    const flags = await helpFlags(['scan', 'worker']);
    for (const flag of container!.args.filter((a) => a.startsWith('--'))) expect(flags, flag).toContain(flag);
    expect(container!.image).toBe(`provenance:${(JSON.parse(read('package.json')) as { version: string }).version}`);
  });

  it("the worker's threads are the CPUs the pod asks for (its default is the node's cores)", () => {
    const args = container!.args;
    const concurrency = args[args.indexOf('--concurrency') + 1];
    expect(concurrency).toBe(container!.resources.requests.cpu);
    expect(concurrency).toBe(container!.resources.limits.cpu);
  });

  it('the stop timeouts are said to cover the batches a worker holds, and the systemd unit names the S3 settings of docs/CLI.md', () => {
    const held = Number(/const BATCHES_IN_HAND = (\d+);/.exec(read('src/fleet/scan-worker.ts'))![1]);
    expect(held).toBe(2);
    const text = SCALE.replace(/\s+/g, ' ');
    expect(text).toContain('`TimeoutStopSec` longer than two batches take');
    expect(text).toContain('`terminationGracePeriodSeconds` longer than two batches take');
    const unit = blocks(SCALE, 'ini')[0]!;
    const cli = read('docs/CLI.md');
    for (const variable of ['AWS_REGION', 'AWS_ENDPOINT_URL', 'AWS_S3_FORCE_PATH_STYLE']) {
      expect(cli, variable).toContain(`\`${variable}`);
      expect(unit, variable).toContain(variable);
    }
  });

  it("--lease is scan start's, and the page says so wherever it names it", async () => {
    expect(await helpFlags(['scan', 'start'])).toContain('--lease');
    expect(await helpFlags(['scan', 'worker'])).not.toContain('--lease');
    const mentions = SCALE.split('\n').filter((l) => l.includes('--lease'));
    expect(mentions.length).toBeGreaterThan(0);
    for (const line of mentions) expect(line, line).toMatch(/scan start|`scan start NAME/);
  });

  it("the opening figures are docs/PERFORMANCE.md's", () => {
    const opening = SCALE.slice(0, SCALE.indexOf('\n\n', SCALE.indexOf('\n\n') + 2)).replace(/\s+/g, ' ');
    const performance = read('docs/PERFORMANCE.md').replace(/\s+/g, ' ');
    const figures = [...opening.matchAll(/\b\d[\d,.]* (?:s|days|inputs a second per core)\b/g)].map((m) => m[0]);
    expect(figures.length).toBeGreaterThanOrEqual(3);
    for (const figure of figures) expect(performance, figure).toContain(figure);
  });
});
