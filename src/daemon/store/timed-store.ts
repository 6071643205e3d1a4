// Times every Store call in one place, whichever implementation is behind it: a decorator around
// the Store interface, so neither file-store.ts nor pg-store.ts carries metric code in each
// method. The operation label is the method's name from a fixed list (never a value from a
// request), and the list is checked against the interface at compile time: a method added to
// Store and not here is a type error, not a silently untimed call.
import type { Store } from './store.js';

/** Where the timings go (the daemon's metrics; http/metrics.ts). */
export interface StoreTimer {
  observeStore(operation: StoreOperation, seconds: number, failed: boolean): void;
}

type MethodsOf<T> = { [K in keyof T]-?: NonNullable<T[K]> extends (...args: never[]) => unknown ? K : never }[keyof T];
export type StoreOperation = MethodsOf<Store>;

export const STORE_OPERATIONS = [
  'insertAccount', 'setAccountPlan', 'accountById', 'accountByEmail', 'listAccounts',
  'insertKey', 'keyById', 'keyByHash', 'listKeys', 'revokeKey', 'touchKey', 'restoreKey',
  'usage', 'reserveCall', 'releaseCall', 'setUsage',
  'takeBurst', 'peekBurst', 'sweepBurst',
  'insertUpload', 'liveUploads', 'putUploadBytes', 'readUploadBytes', 'deleteUploadBytes', 'uploadById', 'deleteUpload', 'takeExpiredUploads', 'uploadFiles', 'liveUploadTotals',
  'insertSession', 'sessionByHash', 'deleteSession', 'deleteExpiredSessions',
  'insertSigninToken', 'signinTokenByHash', 'useSigninToken', 'deleteSigninTokensExpiredBefore',
  'exportState', 'importState', 'reset',
  'healthy', 'commit', 'close',
] as const satisfies readonly StoreOperation[];

// Every method of Store is in the list (the `satisfies` above says every entry is one of them).
type Untimed = Exclude<StoreOperation, (typeof STORE_OPERATIONS)[number]>;
const everyMethodTimed: [Untimed] extends [never] ? true : { untimed: Untimed } = true;
void everyMethodTimed;

/**
 * A Store that reports how long each call took and whether it failed. Calls go to `store` with
 * `store` as `this` (implementations call their own private helpers). Other properties
 * (`location`, a store's own extras) are read through. An optional method the store lacks
 * stays absent, so callers' `store.healthy?.()` checks still see that.
 */
export function timeStore(store: Store, timer: StoreTimer): Store {
  const timed: Record<string, unknown> = {};
  for (const operation of STORE_OPERATIONS) {
    const methods = store as unknown as Record<string, unknown>;
    if (typeof methods[operation] !== 'function') continue;
    // The caller gets the store's own promise (no extra await on its path); the timing hangs
    // off it on the side. The method is looked up at each call, not once here: a method replaced
    // on the store later (through this proxy, whose writes reach the store: tests inject
    // failures that way) is the one called and timed.
    timed[operation] = (...args: unknown[]) => {
      const started = performance.now();
      const done = (failed: boolean) => timer.observeStore(operation, (performance.now() - started) / 1000, failed);
      let result: Promise<unknown>;
      try {
        result = (methods[operation] as (...a: unknown[]) => Promise<unknown>).apply(store, args);
      } catch (err) {
        done(true);
        throw err;
      }
      result.then(
        () => done(false),
        () => done(true),
      );
      return result;
    };
  }
  // Reads of anything else (location, and properties of the implementation) reach the store itself.
  return new Proxy(store, {
    get(target, property, receiver) {
      if (typeof property === 'string' && Object.hasOwn(timed, property)) return timed[property];
      void receiver;
      return Reflect.get(target, property, target);
    },
  });
}
