// The modules `npm run mutation` mutates, and the test files that pin each one (issue 18). Both
// stryker.config.mjs and vitest.mutation.config.ts read this list, so a run of some modules
// (MUTATE=key-format,url-guard npm run mutation) also runs only their tests.
export const TARGETS = {
  quota: {
    source: 'src/daemon/accounts/quota.ts',
    tests: ['test/daemon/limits.test.ts', 'test/daemon/detect.test.ts', 'test/daemon/units.test.ts'],
  },
  burst: {
    source: 'src/daemon/store/burst-window.ts',
    tests: ['test/daemon/units.test.ts', 'test/daemon/burst-sweep.test.ts', 'test/daemon/limits.test.ts'],
  },
  'url-guard': {
    source: 'src/daemon/media/url-guard.ts',
    tests: ['test/daemon/url-guard.test.ts', 'test/daemon/url-guard-ranges.test.ts', 'test/daemon/url-source.test.ts'],
  },
  'key-format': {
    source: 'src/daemon/accounts/key-format.ts',
    tests: ['test/daemon/key-format.test.ts', 'test/daemon/units.test.ts', 'test/daemon/detect.test.ts'],
  },
  sniff: {
    source: 'src/media/sniff.ts',
    tests: ['test/sniff.test.ts', 'test/sniff-brands.test.ts', 'test/engine.test.ts'],
  },
  'camera-reference': {
    source: 'src/detectors/camera-reference.ts',
    tests: ['test/camera-reference-pins.test.ts', 'test/engine.test.ts', 'test/exif-tags.test.ts', 'test/exif-tags-pins.test.ts'],
  },
  'exif-tags': {
    source: 'src/media/exif-tags.ts',
    tests: ['test/exif-tags.test.ts', 'test/exif-tags-pins.test.ts', 'test/camera-reference-pins.test.ts', 'test/engine.test.ts'],
  },
  // The embedded store: its journal and the changes it carries.
  journal: {
    source: 'src/daemon/store/journal.ts',
    tests: ['test/daemon/journal.test.ts', 'test/daemon/store-journal.test.ts', 'test/daemon/failing-disk.test.ts', 'test/daemon/crash.test.ts'],
  },
  'store-document': {
    source: 'src/daemon/store/store-document.ts',
    tests: ['test/daemon/store-document.test.ts', 'test/daemon/store-journal.test.ts', 'test/daemon/units.test.ts'],
  },
  // What the fuzz suite aims at (test/daemon/fuzz.test.ts itself is not run here: 5,000 requests
  // per mutant would take days); the tests that pin each of them one by one.
  'json-body': {
    source: 'src/daemon/media/json-body.ts',
    tests: ['test/daemon/json-body.test.ts', 'test/daemon/inline-buffers.test.ts', 'test/daemon/detect.test.ts'],
  },
  'detect-input': {
    source: 'src/daemon/media/detect-input.ts',
    tests: ['test/daemon/detect-input.test.ts', 'test/daemon/detect.test.ts', 'test/daemon/empty-media.test.ts', 'test/daemon/oversize.test.ts', 'test/daemon/uploads.test.ts'],
  },
  'content-encoding': {
    source: 'src/daemon/http/content-encoding.ts',
    tests: ['test/daemon/content-encoding.test.ts', 'test/daemon/transport-errors.test.ts'],
  },
  'client-errors': {
    source: 'src/daemon/http/client-errors.ts',
    tests: ['test/daemon/client-errors.test.ts', 'test/daemon/transport-errors.test.ts', 'test/daemon/slow-clients.test.ts'],
  },
  // The guards of the web pages and of the keyed routes (issue 26).
  csrf: {
    source: 'src/daemon/web/csrf.ts',
    tests: ['test/daemon/web-guards.test.ts'],
  },
  sessions: {
    source: 'src/daemon/web/sessions.ts',
    tests: ['test/daemon/web-guards.test.ts'],
  },
  'signin-limits': {
    source: 'src/daemon/web/signin-limits.ts',
    tests: ['test/daemon/web-guards.test.ts'],
  },
  'signin-links': {
    source: 'src/daemon/web/signin-links.ts',
    tests: ['test/daemon/signin-links.test.ts'],
  },
  'web-kit': {
    source: 'src/daemon/web/web-kit.ts',
    tests: ['test/daemon/web-kit.test.ts'],
  },
  'auth-hooks': {
    source: 'src/daemon/http/auth-hooks.ts',
    tests: ['test/daemon/auth-hooks.test.ts'],
  },
  // The readers of file text and the media budget (issue 34), each with its own unit test file.
  'novelai-signature': {
    source: 'src/detectors/novelai-signature.ts',
    tests: ['test/novelai-signature.test.ts'],
  },
  'alpha-lsb': {
    source: 'src/media/alpha-lsb.ts',
    tests: ['test/alpha-lsb.test.ts'],
  },
  'python-json': {
    source: 'src/detectors/python-json.ts',
    tests: ['test/python-json.test.ts'],
  },
  'png-chunks': {
    source: 'src/media/png-chunks.ts',
    tests: ['test/png-chunks.test.ts'],
  },
  'media-budget': {
    source: 'src/daemon/media/media-budget.ts',
    tests: ['test/daemon/media-budget-unit.test.ts'],
  },
  'user-comment': {
    source: 'src/media/user-comment.ts',
    tests: ['test/user-comment.test.ts'],
  },
  'webp-chunks': {
    source: 'src/media/webp-chunks.ts',
    tests: ['test/webp-chunks.test.ts'],
  },
  'tiff-ifd': {
    source: 'src/media/tiff-ifd.ts',
    tests: ['test/tiff-ifd.test.ts'],
  },
  'exif-text': {
    source: 'src/media/exif-text.ts',
    tests: ['test/exif-text.test.ts'],
  },
  'xmp-hints': {
    source: 'src/media/xmp-hints.ts',
    tests: ['test/xmp-hints.test.ts', 'test/xmp-property.test.ts', 'test/c2pa-explained-xmp.test.ts'],
  },
  // The distributed scan's result writer (issue 40): in-process tests against the real PostgreSQL
  // (the fleet suites run it inside CLI subprocesses, which mutation cannot reach).
  'result-writer': {
    source: 'src/fleet/result-writer.ts',
    tests: ['test/postgres/fleet-result-writer.test.ts'],
  },
  // Held-out mutation testing (issue 40, item 23): what the invisible_watermark check reads from a
  // header before decoding, and the verdict a user reads first.
  'picture-size': {
    source: 'src/media/picture-size.ts',
    tests: ['test/picture-size.test.ts'],
  },
  'exif-orientation': {
    source: 'src/media/exif-orientation.ts',
    tests: ['test/exif-orientation.test.ts'],
  },
  'chroma-sampling': {
    source: 'src/media/chroma-sampling.ts',
    tests: ['test/chroma-sampling.test.ts'],
  },
  verdict: {
    source: 'src/verdict/verdict.ts',
    tests: ['test/verdict.test.ts'],
  },
  // The generator-record readers (issue 34): each with its own unit tests and the two suites that
  // judge whole files (generator-records: the formats beyond the basic ones; generator-metadata).
  ...generatorTargets({
    'generator-a1111': ['test/generator-a1111.test.ts'],
    'generator-comfyui': ['test/generator-comfyui.test.ts'],
    'generator-comfyui-forms': ['test/generator-comfyui-forms.test.ts'],
    'generator-fields': ['test/generator-fields.test.ts'],
    'generator-fooocus': ['test/generator-fooocus.test.ts'],
    'generator-invokeai': ['test/generator-invokeai.test.ts'],
    'generator-json-tools': ['test/generator-json-tools.test.ts'],
    'generator-metadata': ['test/generator-metadata-choice.test.ts'],
    'generator-midjourney': ['test/generator-midjourney.test.ts'],
    'generator-novelai': ['test/generator-novelai.test.ts'],
    'generator-sdnext': ['test/generator-sdnext.test.ts'],
    'generator-sources': ['test/generator-sources.test.ts'],
  }),
};

/** `src/detectors/<name>.ts` for each name, run with its own test files and the two whole-file suites. */
function generatorTargets(own) {
  const whole = ['test/generator-records.test.ts', 'test/generator-metadata.test.ts'];
  return Object.fromEntries(
    Object.entries(own).map(([name, tests]) => [name, { source: `src/detectors/${name}.ts`, tests: [...tests, ...whole] }]),
  );
}

/** The targets named in MUTATE (comma-separated), or all of them. */
export function selectedTargets(env = process.env) {
  const names = env.MUTATE ? env.MUTATE.split(',').map((s) => s.trim()).filter(Boolean) : Object.keys(TARGETS);
  for (const name of names) {
    if (!TARGETS[name]) throw new Error(`MUTATE: unknown module "${name}"; known: ${Object.keys(TARGETS).join(', ')}`);
  }
  return names.map((name) => ({ name, ...TARGETS[name] }));
}
