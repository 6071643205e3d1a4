// Turns on the detection workers, so that one account cannot hold every worker (issue 34). A
// file whose checks run to the time limit holds its worker that long, and the pool takes tasks
// in arrival order: two such uploads on a two-core daemon left every other client waiting out
// the limit. Here a detect waits for a turn before it goes to the pool: at most `slots` run at
// once (the workers, so the pool's own queue stays empty of detects), and at most `perAccount`
// of them for one account. A waiting detect keeps what it already holds (its call, its bytes in
// the media budget) and is served in arrival order among those whose account is under its cap,
// so a newcomer is next as soon as any worker frees, whatever another account has queued.

/** Detects one account may have on the workers at once: every worker but one, and at least one. */
export function perAccountTurns(workers: number): number {
  return Math.max(1, workers - 1);
}

interface Waiter {
  account: string;
  go(): void;
}

export class DetectTurns {
  private running = 0;
  private readonly byAccount = new Map<string, number>();
  private readonly queue: Waiter[] = [];

  constructor(
    /** Detects on the workers at once, over every account. */
    readonly slots: number,
    /** Of those, one account's at most. */
    readonly perAccount: number = perAccountTurns(slots),
  ) {}

  /** Detects waiting for a turn now (the /metrics gauge). */
  get waiting(): number {
    return this.queue.length;
  }

  /** Runs `work` in a turn of `account`'s, once there is one; the turn ends when `work` settles. */
  async run<T>(account: string, work: () => Promise<T>): Promise<T> {
    if (!this.free(account)) await new Promise<void>((go) => this.queue.push({ account, go }));
    else this.start(account);
    try {
      return await work();
    } finally {
      this.end(account);
    }
  }

  private free(account: string): boolean {
    return this.running < this.slots && (this.byAccount.get(account) ?? 0) < this.perAccount;
  }

  private start(account: string): void {
    this.running++;
    this.byAccount.set(account, (this.byAccount.get(account) ?? 0) + 1);
  }

  private end(account: string): void {
    this.running--;
    const left = (this.byAccount.get(account) ?? 1) - 1;
    if (left > 0) this.byAccount.set(account, left);
    else this.byAccount.delete(account);
    // The first waiter, in arrival order, whose account has room: an account at its cap is
    // passed over, never the others behind it.
    for (let i = 0; i < this.queue.length && this.running < this.slots; i++) {
      const next = this.queue[i]!;
      if (!this.free(next.account)) continue;
      this.queue.splice(i--, 1);
      this.start(next.account);
      next.go();
    }
  }
}
