// /v1 shapes that only the daemon (and its clients) use: the error body, the upload record and
// the operator's view of accounts and keys (CONTRACT "Error body", "Keys, accounts, uploads").
// The detection shapes stay in src/types.ts, shared with the engine and the CLI.
import type { ErrorInfo } from '../../types.js';

export interface ErrorBody {
  error: ErrorInfo;
}

export const ERROR_TYPES = [
  'invalid_request',
  'authentication_error',
  'not_found',
  'media_too_large',
  'unsupported_content_type',
  'download_failed',
  'quota_exceeded',
  'rate_limited',
  'upload_limit_exceeded',
  'internal_error',
  'service_unavailable',
  'server_busy',
  'storage_full',
] as const;
export type ErrorType = (typeof ERROR_TYPES)[number];

export const PLAN_IDS = ['free', 'starter', 'growth', 'custom'] as const;
export type PlanId = (typeof PLAN_IDS)[number];

/** 201 body of POST /v1/uploads: a /v1 shape, shared with the client. */
import type { UploadRecord } from '../../types.js';

export type { UploadRecord };

export interface AccountRecord {
  id: string;
  email: string;
  plan: PlanId;
  /** Monthly API calls agreed for a custom plan; absent on the fixed plans. */
  quota?: number;
  created_at: string;
}

/** A key as the operator sees it: never the key itself, nor its hash. */
export interface KeyRecord {
  id: string;
  account: string;
  name: string;
  /** The key's first 8 characters, enough to tell keys apart in a list. */
  prefix: string;
  created_at: string;
  last_used_at: string | null;
  revoked_at: string | null;
}

/** A key record plus the key itself, returned once when the key is created. */
export interface NewKey extends KeyRecord {
  value: string;
}

/** An account with its plan's limits and this month's usage, for `daemon accounts list`. */
export interface AccountView extends AccountRecord {
  limits: { calls_per_month: number; requests_per_minute: number };
  usage: { period: string; used: number };
}
