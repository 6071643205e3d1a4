// A process's resident memory and CPU time, from /proc (Linux), for the daemon benches.
import { readFileSync } from 'node:fs';

/** CPU time (user + system) a process or one of its threads has used so far, in ms (ticks of 10 ms). */
export function cpuMs(pid: number, tid = pid): number {
  const fields = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** Resident set size of a process, in MB. */
export function rssMb(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+) kB/.exec(status)![1]) / 1024;
}
