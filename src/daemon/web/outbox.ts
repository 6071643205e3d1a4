// The offline mailbox: each sign-in mail the daemon would send is written as an RFC 5322 `.eml`
// file in <data-dir>/outbox/ (readable with any mail client, or `cat`), and
// `provenance daemon outbox` reads them back, with or without a running daemon.
import { mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomBase62 } from '../accounts/key-format.js';

export const OUTBOX_DIR = 'outbox';

export interface OutboxMessage {
  file: string;
  to: string;
  subject: string;
  date: string;
  /** The sign-in link in the message, or null when it has none. */
  link: string | null;
}

let sequence = 0;

/**
 * A value read from input (an address, a header of a mail file) made safe for a terminal:
 * every control or format character (ESC, BEL, NUL, CR, bidi overrides...) is shown as a
 * \u{...} escape instead of reaching the terminal, where it could move the cursor, recolour
 * or rewrite what the operator reads.
 */
export function terminalSafe(value: string): string {
  return value.replace(/[\p{Cc}\p{Cf}]/gu, (c) => `\\u{${c.codePointAt(0)!.toString(16)}}`);
}

/** Writes one message (0600, in a 0700 folder); file names sort in the order written. */
export function writeOutboxMessage(dataDir: string, message: string): string {
  const dir = join(dataDir, OUTBOX_DIR);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  // Wall-clock time (not the daemon's injectable clock) plus a counter: names sort by writing order.
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace('.', '');
  const name = `${stamp}-${String(++sequence).padStart(6, '0')}-${randomBase62(4)}.eml`;
  const file = join(dir, name);
  writeFileSync(file, message, { mode: 0o600, flag: 'wx' });
  return file;
}

/** The messages of the outbox, oldest first (an absent outbox is an empty one). */
export function listOutbox(dataDir: string): OutboxMessage[] {
  const dir = join(dataDir, OUTBOX_DIR);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith('.eml'));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return [];
    throw err;
  }
  return names.sort().map((name) => {
    const file = join(dir, name);
    return { file, ...readMessage(readFileSync(file, 'utf8')) };
  });
}

export function readMessage(text: string): Omit<OutboxMessage, 'file'> {
  const split = /\r?\n\r?\n/.exec(text);
  const head = split ? text.slice(0, split.index) : text;
  const body = split ? text.slice(split.index + split[0].length) : '';
  const headers = new Map<string, string>();
  // Unfold continuation lines, then "Name: value".
  for (const line of head.replace(/\r?\n[ \t]+/g, ' ').split(/\r?\n/)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim());
  }
  const text8 = decodeBody(body, headers.get('content-transfer-encoding') ?? '8bit');
  return {
    to: headers.get('to') ?? '',
    subject: headers.get('subject') ?? '',
    date: headers.get('date') ?? '',
    link: findSigninLink(text8),
  };
}

function decodeBody(body: string, encoding: string): string {
  switch (encoding.toLowerCase()) {
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    case 'quoted-printable': {
      const bytes = body
        .replace(/=\r?\n/g, '')
        .replace(/=([0-9A-Fa-f]{2})/g, (_m, hex: string) => String.fromCharCode(parseInt(hex, 16)));
      return Buffer.from(bytes, 'latin1').toString('utf8');
    }
    default:
      return body;
  }
}

export function findSigninLink(text: string): string | null {
  return /https?:\/\/[^\s<>"']+\/signin\/verify\?token=[A-Za-z0-9_-]+/.exec(text)?.[0] ?? null;
}
