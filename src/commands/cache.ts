// `provenance cache clear|path`: the cache of remote results (client/cache.ts).
import { clearCache } from '../client/cache.js';
import { cacheDir } from '../config/paths.js';
import { EXIT, type CommandIO } from './io.js';

export async function runCacheClear(_options: Record<string, never>, io: CommandIO): Promise<number> {
  const dir = cacheDir(io.env);
  const n = await clearCache(dir);
  io.stdout.write(`Removed ${n} cached result${n === 1 ? '' : 's'} from ${dir}.\n`);
  return EXIT.ok;
}

export async function runCachePath(_options: Record<string, never>, io: CommandIO): Promise<number> {
  io.stdout.write(`${cacheDir(io.env)}\n`);
  return EXIT.ok;
}
