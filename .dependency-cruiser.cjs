// The house rules (docs/ARCHITECTURE.md): imports go down only, and never in a circle.
//   index.ts (the library's entry) -> library / client / fleet (the distributed scan's functions)
//   commands -> daemon / client / ui / fleet -> library -> engine -> detectors -> rubrics -> media -> types
//   ui / report / library -> verdict (one verdict per file) -> detectors
//   commands, daemon -> report (the HTML card and scan report) -> ui's card words, detectors, media
// config/ is read by the layers that need settings. Each room's allowed imports are the table of
// docs/ARCHITECTURE.md. Inside the daemon:
//   http -> admin / web -> testing -> media -> accounts -> store -> contract
// `npm test` runs this check (test/architecture.test.ts); `npm run lint:deps` runs it alone.
const room = (name) => `^src/${name}/`;
const only = (name, from, allowed) => ({
  name,
  severity: 'error',
  comment: `${from} may import only ${allowed.join(', ')} (and packages).`,
  from: { path: room(from) },
  to: { path: '^src/', pathNot: allowed.map((a) => (a.endsWith('.ts') ? `^src/${a.replace('.', '\\.')}$` : room(a))) },
});
const never = (name, from, to) => ({
  name,
  severity: 'error',
  comment: `${from} must not import ${to.join(', ')}: that would point up.`,
  from: { path: from },
  to: { path: to.map((t) => `^src/${t}`) },
});

module.exports = {
  forbidden: [
    { name: 'no-circular', severity: 'error', comment: 'An import circle: modules that need each other cannot be understood apart.', from: {}, to: { circular: true } },
    { name: 'types-import-nothing', severity: 'error', from: { path: '^src/types\\.ts$' }, to: { path: '^src/' , pathNot: '^src/types\\.ts$'} },
    only('media-is-the-floor', 'media', ['media', 'types.ts']),
    only('detectors-read-media', 'detectors', ['detectors', 'rubrics', 'media', 'types.ts']),
    // The C2PA Asset Rubrics (issue 38): the shipped YAML evaluated with json-formula over crJSON.
    only('rubrics-read-data', 'rubrics', ['rubrics', 'media', 'types.ts']),
    only('engine-runs-detectors', 'engine', ['engine', 'detectors', 'media', 'types.ts']),
    only('config-stands-alone', 'config', ['config', 'types.ts']),
    only('library-runs-the-engine', 'library', ['library', 'verdict', 'engine', 'detectors', 'rubrics', 'media', 'config', 'types.ts']),
    // The distributed scan (issue 33): a queue in PostgreSQL, workers that run the library's checker.
    only('fleet-queues-scans', 'fleet', ['fleet', 'library', 'verdict', 'engine', 'detectors', 'media', 'config', 'types.ts']),
    only('daemon-runs-the-engine', 'daemon', ['daemon', 'report', 'engine', 'detectors', 'media', 'config', 'types.ts']),
    only('client-speaks-v1', 'client', ['client', 'config', 'types.ts']),
    only('ui-draws-results', 'ui', ['ui', 'verdict', 'engine', 'detectors', 'media', 'types.ts']),
    // One verdict per file from the checks' matches: read by the CLI, the library and both cards.
    only('verdict-weighs-matches', 'verdict', ['verdict', 'detectors', 'types.ts']),
    // The HTML report and card: shared by `check --html` (commands) and the daemon's Verify page,
    // so it imports neither; it speaks with the terminal card's own words (those ui modules only).
    only('report-renders-results', 'report', ['report', 'ui/text-report.ts', 'ui/ai-marks-card.ts', 'ui/style.ts', 'ui/terminal-text.ts', 'verdict', 'detectors', 'media', 'types.ts']),
    never('only-the-package-imports-index', '^src/(?!index\\.ts$)', ['index\\.ts']),
    never('commands-are-the-top', '^src/(?!commands/|cli\\.ts)', ['commands/', 'cli\\.ts']),
    // Inside the daemon.
    never('contract-is-the-daemon-floor', '^src/daemon/contract/', ['daemon/(store|accounts|media|testing|web|admin|http)/']),
    never('store-below-services', '^src/daemon/store/', ['daemon/(accounts|media|testing|web|admin|http)/']),
    never('accounts-below-media', '^src/daemon/accounts/', ['daemon/(media|testing|web|admin|http)/']),
    never('media-below-web', '^src/daemon/media/', ['daemon/(testing|web|admin|http)/']),
    never('testing-below-admin-and-web', '^src/daemon/testing/', ['daemon/(web|admin|http)/']),
    never('web-below-http', '^src/daemon/web/', ['daemon/(admin|http)/']),
    never('admin-below-http', '^src/daemon/admin/', ['daemon/http/']),
    {
      name: 'store-owns-its-engines',
      severity: 'error',
      comment: 'Only the store implementations (and the scan queue, fleet/, which keeps its own tables) talk to lowdb or PostgreSQL; everything else goes through the Store interface.',
      from: { pathNot: '^src/(daemon/store|fleet)/' },
      to: { path: 'node_modules/(lowdb|pg|pg-pool|pg-boss)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.tsx', '.js', '.mjs', '.json'] },
    exclude: { path: '^(dist|node_modules)/' },
  },
};
