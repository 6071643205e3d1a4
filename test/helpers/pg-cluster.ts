// A throwaway PostgreSQL server for tests that stop and start the database (the machine's own
// server is shared and is never restarted by a test): Debian's initdb and pg_ctl, a data dir in
// a temp folder, a free port on 127.0.0.1, trust authentication. The server refuses to run as
// root, so as root it runs as the `postgres` system user (runuser).
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from './free-port.js';

export interface Cluster {
  url: string;
  port: number;
  stop(): void;
  start(): void;
  /**
   * Freezes the server (SIGSTOP to the postmaster and every process it started): its port still
   * accepts TCP connections (the kernel's backlog) and open connections stay open, but nothing
   * answers. A database that hangs, rather than one that refuses.
   */
  pause(): void;
  /** Lets a paused server run again (SIGCONT). */
  resume(): void;
  destroy(): void;
}

/** The process ids of `root` and of every process below it, from /proc (Linux). */
function processTree(root: number): number[] {
  const children = new Map<number, number[]>();
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${name}/stat`, 'utf8');
    } catch {
      continue; // exited meanwhile
    }
    // "pid (comm) state ppid ...": comm may hold spaces and parentheses, so read after the last ')'.
    const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
    children.set(ppid, [...(children.get(ppid) ?? []), Number(name)]);
  }
  const tree: number[] = [];
  const queue = [root];
  while (queue.length) {
    const pid = queue.shift()!;
    tree.push(pid);
    queue.push(...(children.get(pid) ?? []));
  }
  return tree;
}

function binDir(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (!existsSync(root)) return undefined;
  const versions = readdirSync(root).filter((v) => existsSync(join(root, v, 'bin', 'initdb'))).sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(root, versions[0], 'bin') : undefined;
}

function postgresUid(): { uid: number; gid: number } | undefined {
  try {
    const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    return undefined;
  }
}

/** Why a throwaway cluster cannot be made here, or undefined when it can. */
export function clusterUnavailable(): string | undefined {
  if (!binDir()) return 'no PostgreSQL server binaries under /usr/lib/postgresql/*/bin';
  if (process.getuid?.() === 0 && !postgresUid()) return 'running as root and there is no postgres user to run the server as';
  return undefined;
}

export async function startCluster(): Promise<Cluster> {
  const bin = binDir()!;
  const dir = mkdtempSync(join(tmpdir(), 'prov-pgcluster-'));
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot ? postgresUid()! : undefined;
  if (owner) chownSync(dir, owner.uid, owner.gid);
  const run = (tool: string, args: string[]) => {
    const command = asRoot ? 'runuser' : join(bin, tool);
    const argv = asRoot ? ['-u', 'postgres', '--', join(bin, tool), ...args] : args;
    execFileSync(command, argv, { stdio: 'pipe', timeout: 60_000 });
  };
  const data = join(dir, 'data');
  const port = await freePort();
  run('initdb', ['-D', data, '-A', 'trust', '-U', 'postgres', '--no-sync']);
  const options = `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off`;
  const start = () => run('pg_ctl', ['-D', data, '-o', options, '-l', join(dir, 'server.log'), '-w', '-t', '30', 'start']);
  const stop = () => run('pg_ctl', ['-D', data, '-m', 'fast', '-w', '-t', '30', 'stop']);
  start();
  const postmaster = () => Number(readFileSync(join(data, 'postmaster.pid'), 'utf8').split('\n')[0]);
  const signal = (pid: number, sig: NodeJS.Signals) => {
    try {
      process.kill(pid, sig);
    } catch {
      // a backend that exited meanwhile
    }
  };
  // The postmaster is stopped first (then it starts no new backend while the others are being
  // stopped) and let go last (the others run by the time it accepts connections again).
  const pause = () => {
    const root = postmaster();
    signal(root, 'SIGSTOP');
    for (const pid of processTree(root).slice(1)) signal(pid, 'SIGSTOP');
  };
  const resume = () => {
    const root = postmaster();
    for (const pid of processTree(root).slice(1)) signal(pid, 'SIGCONT');
    signal(root, 'SIGCONT');
  };
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    start,
    stop,
    pause,
    resume,
    destroy() {
      try {
        resume(); // a paused server would not stop
      } catch {
        // not running
      }
      try {
        stop();
      } catch {
        // already stopped
      }
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
