// Shared set-up for the daemon contract suite: a fresh data dir per app, accounts made straight
// on the store, and a listening socket on 127.0.0.1 only (never any other address).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { buildApp, type AppOptions } from '../../src/daemon/app.js';

export interface TestClock {
  (): Date;
  set(iso: string): void;
  advance(ms: number): void;
}

/** A clock tests move by hand (month rollover, burst windows, upload expiry). */
export function testClock(iso = '2026-11-15T12:00:00Z'): TestClock {
  let t = Date.parse(iso);
  const clock = (() => new Date(t)) as TestClock;
  clock.set = (s) => {
    t = Date.parse(s);
  };
  clock.advance = (ms) => {
    t += ms;
  };
  return clock;
}

export function tempDir(prefix = 'prov-daemon-'): { dir: string; cleanup(): void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface TestApp {
  app: FastifyInstance;
  dir: string;
  /** Creates an account (and its first key) directly on the store. */
  account(email: string, plan?: string, quota?: number): { key: string; keyId: string; accountId: string };
  close(): Promise<void>;
}

export async function makeApp(options: Partial<AppOptions> = {}, dir?: string): Promise<TestApp> {
  const tmp = dir ? undefined : tempDir();
  const dataDir = dir ?? tmp!.dir;
  const app = await buildApp({ workers: 0, store: { durable: false }, ...options, dataDir });
  let n = 0;
  return {
    app,
    dir: dataDir,
    account(email, plan = 'free', quota) {
      const { account, key } = app.services.accounts.createAccount({
        email: email.includes('@') ? email : `${email}-${n++}@example.test`,
        plan,
        quota,
      });
      void app.services.store.commit();
      return { key: key.value, keyId: key.id, accountId: account.id };
    },
    async close() {
      await app.close();
      tmp?.cleanup();
    },
  };
}

/** Listens on 127.0.0.1 with an OS-chosen port; returns the base URL. */
export async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ host: '127.0.0.1', port: 0 });
  const address = app.server.address();
  if (!address || typeof address === 'string') throw new Error('no address');
  return `http://127.0.0.1:${address.port}`;
}

export const bearer = (key: string) => ({ authorization: `Bearer ${key}` });

export function b64(bytes: Uint8Array): string {
  return Buffer.from(bytes).toString('base64');
}

/** The headers SPEC 8.2 / CONTRACT put on every authenticated POST /v1/detect response. */
export const LIMIT_HEADERS = [
  'x-quota-limit',
  'x-quota-used',
  'x-quota-remaining',
  'x-quota-reset',
  'ratelimit-limit',
  'ratelimit-remaining',
  'ratelimit-reset',
] as const;

export interface HttpResult {
  status: number;
  headers: Record<string, string>;
  body: any;
  text: string;
}

/** One request over real HTTP (fetch) to a daemon on 127.0.0.1. */
export async function http(
  base: string,
  method: string,
  path: string,
  init: { key?: string; json?: unknown; body?: BodyInit; headers?: Record<string, string> } = {},
): Promise<HttpResult> {
  const headers: Record<string, string> = { ...(init.key ? bearer(init.key) : {}), ...init.headers };
  let body = init.body;
  if (init.json !== undefined) {
    body = JSON.stringify(init.json);
    headers['content-type'] ??= 'application/json';
  }
  const response = await fetch(`${base}${path}`, { method, headers, body });
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    parsed = undefined;
  }
  return { status: response.status, headers: Object.fromEntries(response.headers), body: parsed, text };
}

/** Asserts the CONTRACT error body and returns it. */
export function expectError(result: HttpResult | { statusCode: number; json(): any }, status: number, type: string, param?: string) {
  const actual = 'status' in result ? result.status : result.statusCode;
  const body = 'status' in result ? result.body : result.json();
  if (actual !== status || body?.error?.type !== type) {
    throw new Error(`expected ${status} ${type}, got ${actual} ${JSON.stringify(body)}`);
  }
  const keys = Object.keys(body.error).sort();
  if (!(keys.join() === 'message,type' || keys.join() === 'message,param,type')) throw new Error(`extra error fields: ${keys}`);
  if (typeof body.error.message !== 'string' || body.error.message.length < 10) throw new Error('no message');
  if (param !== undefined && body.error.param !== param) throw new Error(`param ${body.error.param} != ${param}`);
  if (/\n\s+at /.test(JSON.stringify(body))) throw new Error('stack trace in body');
  return body.error as { type: string; message: string; param?: string };
}

/** The fields a daemon result and an engine result share (SPEC: all but id and duration_ms). */
export function comparable(result: Record<string, unknown>): Record<string, unknown> {
  const { id: _id, duration_ms: _d, source: _s, ...rest } = result;
  return rest;
}
