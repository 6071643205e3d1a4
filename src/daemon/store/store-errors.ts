// Store problems that are the operator's to fix, not defects: a bad --store URL, a database that
// does not answer, a schema from another version. Commands report them in one line, exit 2.
import { SchemaTooNewError, SchemaTooOldError } from './pg-migrations.js';
import { StoreConnectError, StoreUrlError } from './pg-store.js';

export function isStoreUsageError(err: unknown): boolean {
  return err instanceof StoreUrlError || err instanceof StoreConnectError || err instanceof SchemaTooNewError || err instanceof SchemaTooOldError;
}
