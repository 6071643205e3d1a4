// `provenance trust update`: the current C2PA Trust List and TSA Trust List into the config
// folder, where they take precedence over the lists bundled in the package. From the C2PA's
// repository over https (or `--url`/PROVENANCE_TRUST_LIST_URL, a folder holding both files), or
// from files (`--from`, `--tsa-from`) on a machine without internet. Nothing is replaced until
// every certificate of every list taken has been read; the old lists stay on any failure.
import { readFileSync } from 'node:fs';
import { request } from 'node:https';
import { parseAnchors } from '../config/pem.js';
import { readAnchorFile, TrustAnchorError } from '../config/trust-store.js';
import { installTrustLists, TRUST_LIST_FILES, TRUST_LIST_TITLES, trustListFiles, type ListToInstall, type TrustListName } from '../config/trust-lists.js';
import { WRITE_REFUSED_EXIT } from '../config/paths.js';
import { packageDataFile } from '../media/package-data.js';
import { TRUST_LIST_MAX_BYTES } from '../media/trust-anchor-text.js';
import { EXIT, usageErrorsReported, type CommandIO } from './io.js';

/** Where the C2PA publishes the lists (c2pa-org/conformance-public, folder trust-list/). */
export const DEFAULT_TRUST_LIST_URL = 'https://raw.githubusercontent.com/c2pa-org/conformance-public/main/trust-list/';
/** The environment variable that points `trust update` elsewhere (a mirror; the tests' server). */
export const TRUST_LIST_URL_ENV = 'PROVENANCE_TRUST_LIST_URL';
/** The whole fetch of both lists, redirects included. */
export const UPDATE_TIMEOUT_MS = 30_000;
const MAX_REDIRECTS = 5;

export interface TrustUpdateOptions {
  /** A PEM file to take as the C2PA Trust List. */
  from?: string;
  /** A PEM file to take as the C2PA TSA Trust List. */
  tsaFrom?: string;
  /** The folder URL holding both files (default: the C2PA's). */
  url?: string;
  /** Tests: the clock that dates the lists taken. */
  now?: () => Date;
}

/** A failure that is not the user's input (the network, the server, a list served damaged): exit 1. */
function fetchFailure(message: string): TrustAnchorError {
  return Object.assign(new TrustAnchorError(`${message} The lists in use are unchanged.`), { exitCode: WRITE_REFUSED_EXIT });
}

/** The folder URL, checked: https only (a list of anchors fetched in the clear could be swapped). */
export function updateBaseUrl(given: string | undefined, env: NodeJS.ProcessEnv): URL {
  const text = given ?? (env[TRUST_LIST_URL_ENV] || DEFAULT_TRUST_LIST_URL);
  const label = given !== undefined ? '--url' : env[TRUST_LIST_URL_ENV] ? TRUST_LIST_URL_ENV : 'the update address';
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new TrustAnchorError(`${label}: "${text}" is not an address; give an https:// URL of the folder that holds ${TRUST_LIST_FILES['c2pa-trust-list']}.`);
  }
  if (url.protocol !== 'https:') throw new TrustAnchorError(`${label}: ${url.protocol}// is refused; the lists are fetched over https:// only.`);
  if (url.username || url.password) throw new TrustAnchorError(`${label}: an address with a user name or password is refused.`);
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url;
}

/** One GET over https, its body at most TRUST_LIST_MAX_BYTES, redirects (https only) followed. */
function fetchText(url: URL, deadline: number, redirects = 0): Promise<string> {
  return new Promise((resolve, reject) => {
    const left = deadline - Date.now();
    if (left <= 0) return reject(fetchFailure(`Fetching ${url.href} took longer than ${UPDATE_TIMEOUT_MS / 1000} s.`));
    const req = request(url, { method: 'GET', headers: { accept: 'application/x-pem-file, text/plain, */*', 'user-agent': 'provenance trust update' } }, (res) => {
      const status = res.statusCode ?? 0;
      if (status >= 300 && status < 400 && res.headers.location) {
        res.resume();
        if (redirects >= MAX_REDIRECTS) return reject(fetchFailure(`${url.href} redirected more than ${MAX_REDIRECTS} times.`));
        let next: URL;
        try {
          next = new URL(res.headers.location, url);
        } catch {
          return reject(fetchFailure(`${url.href} redirected to an address that cannot be read.`));
        }
        if (next.protocol !== 'https:') return reject(fetchFailure(`${url.href} redirected to ${next.protocol}//, refused: the lists are fetched over https:// only.`));
        return resolve(fetchText(next, deadline, redirects + 1));
      }
      if (status !== 200) {
        res.resume();
        return reject(fetchFailure(`${url.host} answered ${status} for ${url.href}.`));
      }
      const declared = Number(res.headers['content-length']);
      if (declared > TRUST_LIST_MAX_BYTES) {
        res.destroy();
        return reject(fetchFailure(`${url.href} is ${declared} bytes, more than a trust list's ${TRUST_LIST_MAX_BYTES}.`));
      }
      const chunks: Buffer[] = [];
      let size = 0;
      res.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > TRUST_LIST_MAX_BYTES) {
          res.destroy();
          req.destroy();
          reject(fetchFailure(`${url.href} is more than a trust list's ${TRUST_LIST_MAX_BYTES} bytes.`));
          return;
        }
        chunks.push(chunk);
      });
      res.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      res.on('error', (err) => reject(fetchFailure(`Reading ${url.href} failed: ${err.message}.`)));
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(fetchFailure(`Fetching ${url.href} took longer than ${UPDATE_TIMEOUT_MS / 1000} s.`));
    }, left);
    req.on('close', () => clearTimeout(timer));
    req.on('error', (err: NodeJS.ErrnoException) => {
      const offline = ['ENOTFOUND', 'EAI_AGAIN', 'ECONNREFUSED', 'ENETUNREACH', 'EHOSTUNREACH', 'ETIMEDOUT', 'ECONNRESET'].includes(err.code ?? '');
      reject(
        fetchFailure(
          offline
            ? `Cannot reach ${url.host} (${err.code}): is this machine offline? Download ${TRUST_LIST_FILES['c2pa-trust-list']} and ${TRUST_LIST_FILES['c2pa-tsa-trust-list']} elsewhere and give them with --from and --tsa-from.`
            : `Fetching ${url.href} failed: ${err.message}.`,
        ),
      );
    });
    req.end();
  });
}

/** Reads every certificate of a fetched list; a list served damaged is the server's fault (exit 1). */
function checkedFetched(text: string, href: string): number {
  try {
    return parseAnchors(text, href).length;
  } catch (err) {
    if (err instanceof TrustAnchorError) throw fetchFailure(`${err.message}`);
    throw err;
  }
}

export function runTrustUpdate(options: TrustUpdateOptions, io: CommandIO): Promise<number> {
  return usageErrorsReported(io, (err) => err instanceof TrustAnchorError, async () => {
    const now = (options.now ?? (() => new Date()))();
    const before = new Map(trustListFiles(packageDataFile('c2pa'), io.env).map((l) => [l.list, l]));
    const taken: (ListToInstall & { count: number })[] = [];
    if (options.from !== undefined || options.tsaFrom !== undefined) {
      if (options.url !== undefined) throw new TrustAnchorError('--url fetches the lists; --from and --tsa-from take them from files: give one or the other.');
      const files: [TrustListName, string | undefined][] = [
        ['c2pa-trust-list', options.from],
        ['c2pa-tsa-trust-list', options.tsaFrom],
      ];
      for (const [list, file] of files) {
        if (file === undefined) continue;
        // Every certificate read (a missing, empty, cut-off or damaged file: exit 2) before any is kept.
        const anchors = readAnchorFile(file, `${file} (${list === 'c2pa-trust-list' ? '--from' : '--tsa-from'})`);
        taken.push({ list, text: readFileSync(file, 'utf8'), from: file, count: anchors.length });
      }
    } else {
      const base = updateBaseUrl(options.url, io.env);
      const deadline = Date.now() + UPDATE_TIMEOUT_MS;
      for (const list of Object.keys(TRUST_LIST_FILES) as TrustListName[]) {
        const url = new URL(TRUST_LIST_FILES[list], base);
        const text = await fetchText(url, deadline);
        taken.push({ list, text, from: url.href, count: checkedFetched(text, url.href) });
      }
    }
    const written = installTrustLists(taken, now, io.env);
    taken.forEach((t, i) => {
      const old = before.get(t.list);
      const was = old ? ` (was ${old.origin === 'bundled' ? 'the bundled list' : `the list updated ${old.date}`})` : '';
      io.stdout.write(`${TRUST_LIST_TITLES[t.list]}: ${t.count} anchor${t.count === 1 ? '' : 's'} from ${t.from}${was}\n         saved as ${written[i]}\n`);
    });
    io.stdout.write('Updated lists take precedence over those bundled with provenance; `provenance trust list` shows what is in use.\n');
    return EXIT.ok;
  });
}
