// The benches' gauge of how fast this machine is right now: its speed drifts by up to 2x within
// minutes, so every bench prints this beside its figures.
import { createHash } from 'node:crypto';

/** SHA-256 of `bytes`, one thread, in ms per run (after a warm-up). */
export function sha256Ms(bytes: Uint8Array): number {
  for (let i = 0; i < 20; i++) createHash('sha256').update(bytes).digest();
  const start = performance.now();
  for (let i = 0; i < 200; i++) createHash('sha256').update(bytes).digest();
  return (performance.now() - start) / 200;
}
