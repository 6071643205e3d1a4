// A real S3 API server for tests: s3rver (npm) in a Node process of its own on 127.0.0.1, with
// its objects in a folder the test owns. Its own process because s3rver makes ListObjectsV2
// continuation tokens with DES, which OpenSSL 3 keeps in its legacy provider: that process is
// started with --openssl-legacy-provider, and the test's own process is left as it is.
import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { join } from 'node:path';
import { ROOT } from './corpus.js';

export interface S3Server {
  /** http://127.0.0.1:PORT */
  endpoint: string;
  stop(): Promise<void>;
}

const SERVE = `
const S3rver = require('s3rver');
const [directory, ...buckets] = process.argv.slice(1);
new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory, configureBuckets: buckets.map((name) => ({ name })) })
  .run()
  .then((address) => console.log(JSON.stringify(address)), (err) => { console.error(err); process.exit(1); });
`;

/** Starts s3rver with `buckets` (empty) and data in `directory`; resolves once it listens. */
export async function startS3rver(directory: string, buckets: string[]): Promise<S3Server> {
  const child: ChildProcess = spawn(process.execPath, ['--openssl-legacy-provider', '-e', SERVE, directory, ...buckets], {
    cwd: ROOT,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // A test process that ends without stop() (a crash, a timeout) takes its server with it.
  const orphan = () => child.kill();
  process.once('exit', orphan);
  const port = await new Promise<number>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout! });
    lines.once('line', (line) => resolve((JSON.parse(line) as { port: number }).port));
    child.once('exit', (code) => reject(new Error(`s3rver exited (code ${code}) before it listened`)));
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        process.removeListener('exit', orphan);
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill();
      }),
  };
}

/**
 * The environment of a run against `endpoint` (s3rver's): the SDK's own variables only, with
 * s3rver's fixed credentials, and nothing from this machine's ~/.aws (files in `dir` that do not exist).
 */
export function s3rverEnv(endpoint: string, dir: string, overrides: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv {
  return {
    AWS_ENDPOINT_URL: endpoint,
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'S3RVER',
    AWS_SECRET_ACCESS_KEY: 'S3RVER',
    AWS_S3_FORCE_PATH_STYLE: 'true',
    AWS_CONFIG_FILE: join(dir, 'no-aws-config'),
    AWS_SHARED_CREDENTIALS_FILE: join(dir, 'no-aws-credentials'),
    AWS_PROFILE: undefined,
    AWS_SESSION_TOKEN: undefined,
    ...overrides,
  };
}
