// fast-check's failure message prints the whole counterexample: with 1,000 headers and a 4 MB
// body as an array of numbers, one failure made a CI log of 12 MB. What a person needs is the
// seed and path (FUZZ_SEED reruns it), the request's label and what was wrong: kept, the rest cut.

/** Runs a property; a failure is rethrown with its counterexample cut, after `prefix` (e.g. the seed). */
export async function compactFailure(run: Promise<void>, prefix = ''): Promise<void> {
  try {
    await run;
  } catch (err) {
    const e = err as Error & { cause?: unknown };
    const head = e.message.split('\n').filter((line) => !line.startsWith('Counterexample:')).join('\n');
    const cause = e.cause instanceof Error ? e.cause.message : String(e.cause ?? '');
    throw new Error(`${prefix}${head.slice(0, 2000)}\nCaused by: ${cause.slice(0, 4000)}`);
  }
}
