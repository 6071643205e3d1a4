// A real HTTPS server on 127.0.0.1 for tests, with a certificate from a throw-away CA made by
// the openssl CLI: the CA's PEM is what a spawned process trusts through NODE_EXTRA_CA_CERTS.
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:https';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

const OPENSSL = existsSync('/usr/bin/openssl') ? '/usr/bin/openssl' : 'openssl';

export interface TlsFiles {
  /** The CA's certificate (PEM file): trust it to trust the server. */
  caFile: string;
  caPem: string;
  certPem: string;
  keyPem: string;
}

/** A CA, and a server certificate it issued for 127.0.0.1 and localhost, in `dir`. */
export function makeServerCertificate(dir: string): TlsFiles {
  const run = (args: string[]) => execFileSync(OPENSSL, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  writeFileSync(join(dir, 'server.ext'), 'basicConstraints = CA:FALSE\nkeyUsage = digitalSignature\nextendedKeyUsage = serverAuth\nsubjectAltName = IP:127.0.0.1, DNS:localhost\n');
  run(['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=provenance test CA']);
  run(['req', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=127.0.0.1']);
  run(['x509', '-req', '-in', 'server.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'server.pem', '-days', '2', '-extfile', 'server.ext']);
  return {
    caFile: join(dir, 'ca.pem'),
    caPem: readFileSync(join(dir, 'ca.pem'), 'utf8'),
    certPem: readFileSync(join(dir, 'server.pem'), 'utf8'),
    keyPem: readFileSync(join(dir, 'server.key'), 'utf8'),
  };
}

export interface HttpsTestServer {
  server: Server;
  /** https://127.0.0.1:PORT */
  origin: string;
  stop(): Promise<void>;
}

export async function startHttpsServer(tls: TlsFiles, handle: (req: IncomingMessage, res: ServerResponse) => void): Promise<HttpsTestServer> {
  const server = createServer({ cert: tls.certPem, key: tls.keyPem }, handle);
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    server,
    origin: `https://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
