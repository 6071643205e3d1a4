// Sends sign-in links. By default nothing leaves the machine: the message is written to the
// data dir's outbox, and on the daemon's console only where that mail was saved (offline use;
// the link itself only when the console is a person's terminal). With an SMTP
// URL (`--smtp-url smtp://user:pass@host:587`) the same message goes out through nodemailer,
// loaded only then. The link is a credential: it is never passed to the structured log.
import { randomBytes } from 'node:crypto';
import { relative } from 'node:path';
import { terminalSafe, writeOutboxMessage } from './outbox.js';
import { formatUtc } from './pages/format.js';

export interface SigninMail {
  to: string;
  link: string;
  expiresAt: Date;
  /** When the mail is composed (the daemon's clock). */
  date: Date;
}

export interface Mailer {
  /** 'outbox' also tells the pages to mention the console and `daemon outbox`. */
  readonly kind: 'outbox' | 'smtp' | 'custom';
  send(mail: SigninMail): Promise<void>;
  close(): Promise<void>;
}

export interface MailerOptions {
  dataDir: string;
  /** smtp:// or smtps:// URL; without it, the outbox. */
  smtpUrl?: string;
  /** From: address (default "provenance daemon <noreply@provenance.localhost>"). */
  mailFrom?: string;
  /** The daemon's console (the outbox mailer prints there); nothing is printed without one. */
  console?: NodeJS.WritableStream;
  /**
   * true: print the link itself, with its address: only for a console that is a person's terminal.
   * Otherwise (the default) only where the mail was saved, neither the link (a live credential)
   * nor the address: a console that is not a terminal is a log (daemon.log, the journal).
   */
  linkOnConsole?: boolean;
}

export const DEFAULT_MAIL_FROM = 'provenance daemon <noreply@provenance.localhost>';
export const SIGNIN_SUBJECT = 'Your provenance sign-in link';

export class MailerConfigError extends Error {}

export function signinText(mail: SigninMail): string {
  return [
    'Hello,',
    '',
    'Open this link and press its "Sign in" button to sign in to your provenance daemon:',
    '',
    mail.link,
    '',
    `It works once and expires at ${formatUtc(mail.expiresAt)}.`,
    'If you did not ask to sign in, ignore this message: nothing happens without the link.',
    '',
  ].join('\n');
}

/** The message as an RFC 5322 text (8bit, so the link stays on one line for `cat`). */
export function composeSigninMessage(mail: SigninMail, from = DEFAULT_MAIL_FROM): string {
  // normaliseEmail refuses control characters; a header never carries one all the same.
  if (/[\p{Cc}\p{Cf}]/u.test(mail.to)) throw new Error('A mail address with control characters cannot be written into a header.');
  const ascii = /^[\x20-\x7e\n]*$/.test(signinText(mail));
  const headers = [
    `From: ${from}`,
    `To: ${mail.to}`,
    `Subject: ${SIGNIN_SUBJECT}`,
    `Date: ${mail.date.toUTCString().replace(/GMT$/, '+0000')}`,
    `Message-ID: <${randomBytes(12).toString('hex')}@provenance.localhost>`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    `Content-Transfer-Encoding: ${ascii ? '7bit' : '8bit'}`,
  ];
  return `${headers.join('\r\n')}\r\n\r\n${signinText(mail).replace(/\n/g, '\r\n')}`;
}

function checkHeaderValue(value: string, what: string): string {
  if (/[\r\n]/.test(value)) throw new MailerConfigError(`${what} must be one line.`);
  return value;
}

export class OutboxMailer implements Mailer {
  readonly kind = 'outbox' as const;
  constructor(private readonly options: MailerOptions) {}

  async send(mail: SigninMail): Promise<void> {
    const file = writeOutboxMessage(this.options.dataDir, composeSigninMessage(mail, this.options.mailFrom));
    const out = this.options.console;
    if (!out) return;
    if (this.options.linkOnConsole === true) {
      out.write(`sign-in link for ${terminalSafe(mail.to)} (expires ${formatUtc(mail.expiresAt)}): ${mail.link}\n`);
    } else {
      out.write(`sign-in mail saved as ${relative(this.options.dataDir, file)}; print its link with: provenance daemon outbox --last --data-dir ${this.options.dataDir}\n`);
    }
  }

  async close(): Promise<void> {}
}

/** smtp:// or smtps:// with a host, or MailerConfigError (never echoing the URL: it may hold a password). */
export function checkSmtpUrl(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new MailerConfigError('--smtp-url is not a URL; use smtp://[user:password@]host[:port] or smtps://...');
  }
  if (parsed.protocol !== 'smtp:' && parsed.protocol !== 'smtps:') {
    throw new MailerConfigError(`--smtp-url must start with smtp:// or smtps://, not ${parsed.protocol}//`);
  }
  if (!parsed.hostname) throw new MailerConfigError('--smtp-url has no host.');
  return parsed;
}

type Transport = { sendMail(message: object): Promise<unknown>; close(): void };

export class SmtpMailer implements Mailer {
  readonly kind = 'smtp' as const;
  private transport?: Promise<Transport>;

  constructor(
    private readonly url: string,
    private readonly from = DEFAULT_MAIL_FROM,
  ) {
    checkSmtpUrl(url);
  }

  private load(): Promise<Transport> {
    this.transport ??= import('nodemailer').then(
      (nodemailer) =>
        nodemailer.createTransport({
          url: this.url,
          connectionTimeout: 10_000,
          greetingTimeout: 10_000,
          socketTimeout: 20_000,
        } as Parameters<typeof nodemailer.createTransport>[0]) as unknown as Transport,
    );
    return this.transport;
  }

  async send(mail: SigninMail): Promise<void> {
    const transport = await this.load();
    await transport.sendMail({ from: this.from, to: mail.to, subject: SIGNIN_SUBJECT, text: signinText(mail), date: mail.date });
  }

  async close(): Promise<void> {
    if (this.transport) (await this.transport).close();
  }
}

export function createMailer(options: MailerOptions): Mailer {
  const from = checkHeaderValue(options.mailFrom ?? DEFAULT_MAIL_FROM, '--mail-from');
  if (options.smtpUrl) return new SmtpMailer(options.smtpUrl, from);
  return new OutboxMailer({ ...options, mailFrom: from });
}
