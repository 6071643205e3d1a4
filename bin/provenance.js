#!/usr/bin/env node
// Thin launcher: the compiled CLI lives in dist/ (built by `npm install` through the prepare script).
import { main } from '../dist/cli.js';

const INTERRUPTED = 130;

/** Resolves once everything written so far to the stream has been handed to the OS. */
const flushed = (stream) => new Promise((resolve) => stream.write('', resolve));

main(process.argv).then(
  async (code) => {
    process.exitCode = code;
    // After Ctrl-C the run ends here even if a terminal handle is still open; lines already
    // written are complete, so flush them and go.
    if (code === INTERRUPTED) {
      await Promise.all([flushed(process.stdout), flushed(process.stderr)]);
      process.exit(code);
    }
  },
  (err) => {
    process.stderr.write(`provenance: internal error: ${err?.stack ?? err}\n`);
    process.exitCode = 70; // EXIT.internalError (src/commands/io.ts), in every exit-code table of the docs
  },
);
