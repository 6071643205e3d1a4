// A worker that cannot start, and leaves a mark in a file each time one is started (the path in
// PROV_TEST_WORKER_STARTS, which a worker thread inherits from the test's environment).
import { appendFileSync } from 'node:fs';

appendFileSync(process.env.PROV_TEST_WORKER_STARTS, 's');
throw new Error('this worker cannot start');
