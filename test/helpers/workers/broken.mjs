// A worker that cannot start: the pool must fail its tasks, not respawn it forever.
throw new Error('this worker cannot start');
