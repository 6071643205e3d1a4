// How `check` gets one input checked: in this thread (one file, or --concurrency 1) or through
// the worker pool. Both give the same outcome, so the command does not care which ran it.
import { attachDetails } from '../detectors/c2pa-manifest.js';
import { detect, type DetectOptions } from '../engine/detect.js';
import { InputError } from '../engine/input-error.js';
import { readInput, type InputItem } from '../engine/inputs.js';
import type { DetectPool } from '../engine/pool.js';
import type { Checked } from '../engine/pool-protocol.js';
import { readHints } from '../engine/xmp-hints.js';
import type { ErrorInfo } from '../types.js';

export type Outcome = ({ source: string; ok: true } & Checked) | { source: string; ok: false; error: ErrorInfo; inputError: boolean };

export interface Checker {
  check(item: InputItem): Promise<Outcome>;
  close(): Promise<void>;
}

function failed(source: string, err: unknown): Outcome {
  if (err instanceof InputError) return { source, ok: false, error: err.toInfo(), inputError: true };
  const info = (err as { info?: ErrorInfo })?.info;
  if (info) return { source, ok: false, error: info, inputError: Boolean((err as { inputError?: boolean }).inputError) };
  throw err;
}

export function inProcessChecker(options: DetectOptions, stdin: NodeJS.ReadableStream): Checker {
  return {
    async check(item) {
      try {
        const bytes = await readInput(item, stdin);
        const result = await detect(bytes, options);
        return { source: item.source, ok: true, result, hints: await readHints(bytes) };
      } catch (err) {
        return failed(item.source, err);
      }
    },
    close: async () => {},
  };
}

export async function poolChecker(size: number, options: DetectOptions, stdin: NodeJS.ReadableStream): Promise<Checker> {
  const { DetectPool } = await import('../engine/pool.js');
  // Eight files per message: a scan wants throughput, not each answer a moment sooner.
  const pool: DetectPool = new DetectPool({ size, batch: 8 });
  return {
    async check(item) {
      try {
        if (item.kind === 'error') throw item.error;
        const input = item.kind === 'stdin' ? { bytes: await readInput(item, stdin) } : { path: item.path };
        const checked = await pool.run({ source: item.source, hints: true, ...input }, options);
        attachDetails(checked.result, checked.details);
        return { source: item.source, ok: true, ...checked };
      } catch (err) {
        return failed(item.source, err);
      }
    },
    close: () => pool.close(),
  };
}
