// A process's resident memory and CPU time, from /proc (Linux), for the daemon benches.
import { readdirSync, readFileSync } from 'node:fs';

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

/**
 * CPU time of a whole process, every thread, in ms, from the scheduler's nanosecond counts
 * (/proc/PID/task/TID/schedstat): /proc/PID/stat counts in ticks of 10 ms, too coarse for a
 * difference of a few percent of a fraction of a millisecond. A thread that ended between two
 * readings drops out of the sum, so a process measured this way must start no threads between
 * them (bench-observability.ts: main-thread detection, no workers).
 */
export function processCpuMs(pid: number): number {
  let ns = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
    } catch {
      // The thread ended while the list was read.
    }
  }
  return ns / 1e6;
}
