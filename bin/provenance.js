#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (built by `npm install` through the prepare script).
import { main } from '../dist/cli.js';

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (err) => {
    process.stderr.write(`provenance: internal error: ${err?.stack ?? err}\n`);
    process.exitCode = 70;
  },
);
