// Turns on the detection workers, so that one account cannot hold every worker (issue 34). A
// file whose checks run to the time limit holds its worker that long, and the pool takes tasks
// in arrival order: two such uploads on a two-core daemon left every other client waiting out
// the limit. Here a detect waits for a turn before it goes to the pool: at most `slots` run at
// once (the workers, so the pool's own queue holds no detects), and of those at most
// `perAccount` for one account. Waiting detects keep what they already hold (their call, their
// bytes in the media budget) and are served in arrival order among those whose account is
// under its share, so a newcomer is next as soon as a worker frees, whatever another account
// has queued.
//
// A worker that no one else wants is not left idle: a detect over its account's share may
// borrow it, so a client with parallel requests to an idle daemon has every worker. A borrowed
// turn is short (the caller gives it BORROWED_TURN_MS): past it the detect is stopped and waits
// for a turn of its account's own, so borrowing holds a worker from a newcomer for that long
// at most. The slowest file measured (media/detect-timeout-flag.ts) took a fifteenth of that: only
// a file slower than the borrowed turn is checked twice.

/** Detects one account may have on the workers at once: every worker but one, and at least one. */
export function perAccountTurns(workers: number): number {
  return Math.max(1, workers - 1);
}

/** How long a borrowed turn may run before its detect goes back to wait for a turn of its own. */
export const BORROWED_TURN_MS = 5_000;

interface Waiter {
  account: string;
  mayBorrow: boolean;
  go(borrowed: boolean): void;
}

export class DetectTurns {
  private running = 0;
  /** Turns of each account's own share (not borrowed ones), by account. */
  private readonly byAccount = new Map<string, number>();
  private readonly queue: Waiter[] = [];

  constructor(
    /** Detects on the workers at once, over every account. */
    readonly slots: number,
    /** Of those, one account's at most, borrowed turns apart. */
    readonly perAccount: number = perAccountTurns(slots),
  ) {}

  /** Detects waiting for a turn now (the /metrics gauge). */
  get waiting(): number {
    return this.queue.length;
  }

  /**
   * Runs `work` in a turn of `account`'s, once there is one; the turn ends when `work` settles.
   * `work` learns whether its turn is borrowed (and so must end within BORROWED_TURN_MS);
   * `mayBorrow` false waits for a turn of the account's own share.
   */
  async run<T>(account: string, work: (borrowed: boolean) => Promise<T>, mayBorrow = true): Promise<T> {
    let borrowed: boolean;
    if (this.running < this.slots && this.underShare(account)) borrowed = this.start(account, false);
    else if (this.running < this.slots && mayBorrow && this.queue.length === 0) borrowed = this.start(account, true);
    else borrowed = await new Promise<boolean>((go) => this.queue.push({ account, mayBorrow, go }));
    try {
      return await work(borrowed);
    } finally {
      this.end(account, borrowed);
    }
  }

  private underShare(account: string): boolean {
    return (this.byAccount.get(account) ?? 0) < this.perAccount;
  }

  private start(account: string, borrowed: boolean): boolean {
    this.running++;
    if (!borrowed) this.byAccount.set(account, (this.byAccount.get(account) ?? 0) + 1);
    return borrowed;
  }

  private end(account: string, borrowed: boolean): void {
    this.running--;
    if (!borrowed) {
      const left = (this.byAccount.get(account) ?? 1) - 1;
      if (left > 0) this.byAccount.set(account, left);
      else this.byAccount.delete(account);
    }
    // First the waiters whose account is under its share, in arrival order (an account at its
    // share is passed over, never the others behind it); then a worker still free is lent to
    // the first waiter that may borrow.
    for (let i = 0; i < this.queue.length && this.running < this.slots; i++) {
      const next = this.queue[i]!;
      if (!this.underShare(next.account)) continue;
      this.queue.splice(i--, 1);
      next.go(this.start(next.account, false));
    }
    const lender = this.running < this.slots ? this.queue.findIndex((w) => w.mayBorrow) : -1;
    if (lender !== -1) {
      const [next] = this.queue.splice(lender, 1);
      next!.go(this.start(next!.account, true));
    }
  }
}
