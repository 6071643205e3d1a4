// Checks a document given to `daemon import` before any store sees it: the right format and
// version, every list of the right records, and the state as a whole (every record's account
// exists, ids and hashes are unique, no account has more active keys than any other path would
// allow, upload files are plain names in the uploads folder). One problem per line with its JSON
// path; a store only ever receives a state that the daemon itself could have produced.
import { PLAN_IDS } from '../contract/api-types.js';
import { MAX_ACTIVE_KEYS } from '../accounts/accounts.js';
import { STORE_SNAPSHOT_FORMAT, STORE_SNAPSHOT_VERSION, type StoreSnapshot } from '../store/store.js';
import { FixtureError } from './fixtures.js';

type FieldKind = 'string' | 'string?' | 'number' | 'number?' | 'null-or-string';

const SHAPES: Record<Exclude<keyof StoreSnapshot, 'format' | 'version'>, Record<string, FieldKind>> = {
  accounts: { id: 'string', email: 'string', plan: 'string', quota: 'number?', created_at: 'string' },
  keys: { id: 'string', account: 'string', name: 'string', prefix: 'string', sha256: 'string', created_at: 'string', last_used_at: 'null-or-string', revoked_at: 'null-or-string' },
  usage: { account: 'string', period: 'string', calls: 'number' },
  uploads: { id: 'string', account: 'string', bytes: 'number', sha256: 'string', type: 'string', created_at: 'string', expires_at: 'string', file: 'string' },
  sessions: { sha256: 'string', account: 'string', created_at: 'string', expires_at: 'string' },
  signin_tokens: { sha256: 'string', email: 'string', next: 'string', created_at: 'string', expires_at: 'string', used_at: 'null-or-string' },
};

function fits(value: unknown, kind: FieldKind): boolean {
  switch (kind) {
    case 'string':
      return typeof value === 'string';
    case 'string?':
      return value === undefined || typeof value === 'string';
    case 'number':
      return typeof value === 'number' && Number.isSafeInteger(value) && value >= 0;
    case 'number?':
      return value === undefined || (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0);
    case 'null-or-string':
      return value === null || typeof value === 'string';
  }
}

/** The document as a snapshot, or FixtureError listing every problem. */
export function checkSnapshot(doc: unknown): StoreSnapshot {
  const problems: string[] = [];
  if (typeof doc !== 'object' || doc === null || Array.isArray(doc)) throw new FixtureError(['$: must be an object written by `provenance daemon export`']);
  const d = doc as Record<string, unknown>;
  if (d.format !== STORE_SNAPSHOT_FORMAT) problems.push(`$.format: must be "${STORE_SNAPSHOT_FORMAT}" (a file written by \`provenance daemon export\`)`);
  if (d.version !== STORE_SNAPSHOT_VERSION) problems.push(`$.version: this daemon reads version ${STORE_SNAPSHOT_VERSION}, not ${JSON.stringify(d.version)}`);
  for (const [list, shape] of Object.entries(SHAPES)) {
    const items = d[list];
    if (!Array.isArray(items)) {
      problems.push(`$.${list}: must be an array`);
      continue;
    }
    items.forEach((item: unknown, i) => {
      if (typeof item !== 'object' || item === null || Array.isArray(item)) return void problems.push(`$.${list}[${i}]: must be an object`);
      for (const [field, kind] of Object.entries(shape)) {
        if (!fits((item as Record<string, unknown>)[field], kind)) problems.push(`$.${list}[${i}].${field}: must be ${kind.replace('?', ' or absent').replace('null-or-string', 'null or a string')}`);
      }
      for (const field of Object.keys(item)) if (!(field in shape)) problems.push(`$.${list}[${i}].${field}: unknown field`);
    });
  }
  for (const k of Object.keys(d)) if (!['format', 'version', ...Object.keys(SHAPES)].includes(k)) problems.push(`$.${k}: unknown field`);
  checkWhole(d, problems);
  if (problems.length) throw new FixtureError(problems);
  return d as unknown as StoreSnapshot;
}

const EMAIL = /^[^\s@A-Z]+@[^\s@A-Z]+\.[^\s@A-Z]+$/;
const SHA256 = /^[0-9a-f]{64}$/;
const PERIOD = /^\d{4}-(0[1-9]|1[0-2])$/;
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})$/;
/** An upload's file is joined to the uploads folder: never a path, never `.` or `..`. */
const FILE_NAME = /^[A-Za-z0-9_-][A-Za-z0-9_.-]{0,199}$/;
const TIME_FIELDS = ['created_at', 'expires_at', 'last_used_at', 'revoked_at', 'used_at'];
/** Fields that name a record (its id, or the account it belongs to): stores key maps by them. */
const ID_FIELDS = ['id', 'account'];
/**
 * Names an object inherits (`__proto__`, `constructor`, `toString`...): as ids they would reach
 * Object.prototype through a plain object keyed by id. The daemon never makes such an id.
 */
const isInheritedName = (name: string): boolean => name === '__proto__' || name in Object.prototype;
/** No stored string holds a control character (PostgreSQL text cannot hold NUL at all). */
const CONTROL = /\p{Cc}/u;

type Row = Record<string, unknown>;

/** The object items of a list, with their index (the shape pass reports the others). */
function rows(d: Row, list: string): Array<[number, Row]> {
  const items = d[list];
  if (!Array.isArray(items)) return [];
  return items.flatMap((item: unknown, i) => (typeof item === 'object' && item !== null && !Array.isArray(item) ? [[i, item as Row] as [number, Row]] : []));
}

const text = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);

/** The checks across records: references, uniqueness, value formats, the active-key limit. */
function checkWhole(d: Row, problems: string[]): void {
  const unique = (list: string, label: string, keyOf: (r: Row) => string | undefined, field: string) => {
    const seen = new Map<string, string>();
    for (const [i, r] of rows(d, list)) {
      const k = keyOf(r);
      if (k === undefined) continue;
      const first = seen.get(k);
      if (first) problems.push(`$.${list}[${i}].${field}: the same ${label} is also ${first}`);
      else seen.set(k, `$.${list}[${i}].${field}`);
    }
  };
  unique('accounts', 'id', (r) => text(r.id), 'id');
  unique('accounts', 'address', (r) => text(r.email)?.trim().toLowerCase(), 'email');
  unique('keys', 'id', (r) => text(r.id), 'id');
  unique('keys', 'key hash', (r) => text(r.sha256), 'sha256');
  unique('usage', 'account and period', (r) => (text(r.account) !== undefined && text(r.period) !== undefined ? `${r.account as string} ${r.period as string}` : undefined), 'period');
  unique('uploads', 'id', (r) => text(r.id), 'id');
  unique('uploads', 'file', (r) => text(r.file), 'file');
  unique('sessions', 'session hash', (r) => text(r.sha256), 'sha256');
  unique('signin_tokens', 'token hash', (r) => text(r.sha256), 'sha256');

  const accounts = new Map<string, string>();
  for (const [i, a] of rows(d, 'accounts')) {
    const path = `$.accounts[${i}]`;
    if (text(a.id) !== undefined) accounts.set(a.id as string, text(a.email) ?? '');
    if (text(a.email) !== undefined && !EMAIL.test(a.email as string)) problems.push(`${path}.email: must be an e-mail address, lower-case and trimmed as the daemon keeps it`);
    if (text(a.plan) !== undefined) {
      if (!(PLAN_IDS as readonly string[]).includes(a.plan as string)) problems.push(`${path}.plan: must be one of ${PLAN_IDS.join(', ')}`);
      else if (a.plan === 'custom' && a.quota === undefined) problems.push(`${path}.quota: a custom plan needs its monthly calls`);
      else if (a.plan !== 'custom' && a.quota !== undefined) problems.push(`${path}.quota: only a custom plan has a quota`);
    }
  }
  // Sign-in tokens name an address, not an account: a link may be asked for before the account
  // exists (opening it makes the account), so a token of an unknown address is a valid state.
  for (const list of ['keys', 'usage', 'uploads', 'sessions']) {
    for (const [i, r] of rows(d, list)) {
      const account = text(r.account);
      if (account !== undefined && !accounts.has(account)) problems.push(`$.${list}[${i}].account: no account ${JSON.stringify(account.slice(0, 64))} in $.accounts`);
    }
  }

  for (const list of Object.keys(SHAPES)) {
    for (const [i, r] of rows(d, list)) {
      for (const field of Object.keys(SHAPES[list as keyof typeof SHAPES])) {
        const v = text(r[field]);
        if (v === undefined) continue;
        if (CONTROL.test(v)) problems.push(`$.${list}[${i}].${field}: must not contain control characters (NUL, ESC, line breaks...)`);
        else if (ID_FIELDS.includes(field) && isInheritedName(v)) problems.push(`$.${list}[${i}].${field}: "${v}" cannot be an id (a name every object inherits); the daemon makes ids like acct_..., key_..., upl_...`);
      }
      for (const field of TIME_FIELDS) {
        const t = text(r[field]);
        if (t !== undefined && !(INSTANT.test(t) && !Number.isNaN(Date.parse(t)))) problems.push(`$.${list}[${i}].${field}: must be an ISO 8601 time, e.g. 2026-11-15T12:00:00.000Z`);
      }
      const hash = text(r.sha256);
      if (hash !== undefined && !SHA256.test(hash)) problems.push(`$.${list}[${i}].sha256: must be a SHA-256 in hex (64 characters 0-9 a-f)`);
    }
  }
  for (const [i, u] of rows(d, 'usage')) {
    if (text(u.period) !== undefined && !PERIOD.test(u.period as string)) problems.push(`$.usage[${i}].period: must be a month, YYYY-MM`);
  }
  for (const [i, u] of rows(d, 'uploads')) {
    if (text(u.file) !== undefined && !FILE_NAME.test(u.file as string)) problems.push(`$.uploads[${i}].file: must be a file name in the uploads folder (letters, digits, _ - .), not a path`);
  }
  for (const [i, t] of rows(d, 'signin_tokens')) {
    if (text(t.email) !== undefined && !EMAIL.test(t.email as string)) problems.push(`$.signin_tokens[${i}].email: must be an e-mail address, lower-case and trimmed`);
  }

  // The limit every other path keeps (accounts.ts): an import may not make a 26th active key.
  const active = new Map<string, number>();
  for (const [, k] of rows(d, 'keys')) {
    const account = text(k.account);
    if (account !== undefined && accounts.has(account) && k.revoked_at === null) active.set(account, (active.get(account) ?? 0) + 1);
  }
  for (const [account, n] of active) {
    if (n > MAX_ACTIVE_KEYS) {
      problems.push(`$.keys: account ${account} (${accounts.get(account)}) would have ${n} active keys; an account has at most ${MAX_ACTIVE_KEYS}: set revoked_at on the ones it no longer uses`);
    }
  }
}
