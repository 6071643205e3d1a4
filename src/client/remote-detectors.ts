// GET /v1/detectors of the configured API, for `provenance detectors --remote`. The endpoint is
// public: a URL is enough, no key is needed or sent. Failures come back as a message and an exit
// code rather than thrown classes: this module is loaded as its own bundle.
import type { DetectorsBody } from '../types.js';
import { ApiError, NetworkError, ProtocolError } from './errors.js';
import { openSession, SessionError, type RemoteDeps } from './session.js';

export async function remoteDetectors(env: NodeJS.ProcessEnv, deps: RemoteDeps = {}): Promise<{ body: DetectorsBody } | { error: string; usage: boolean }> {
  let session;
  try {
    session = await openSession(env, { needKey: false, deps, maxInFlight: 1, instead: "drop --remote to list this build's own detectors" });
  } catch (err) {
    if (err instanceof SessionError) return { error: err.message, usage: true };
    throw err;
  }
  try {
    return { body: await session.client.listDetectors() };
  } catch (err) {
    if (err instanceof ApiError || err instanceof NetworkError || err instanceof ProtocolError) return { error: err.message, usage: false };
    throw err;
  } finally {
    await session.client.close();
  }
}
