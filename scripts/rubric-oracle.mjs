// Records the C2PA's own answers for the rubric tests (test/rubric-oracle.test.ts), so that CI
// needs no Python: the official evaluators c2pa_signals_rubric_evaluator.py and
// c2pa_conformance_rubric_evaluator.py (c2pa-org/conformance-public) run with adobe/json-formula-py
// and PyYAML on
//   - every crJSON document of test/fixtures/asset-rubrics/crjson-made-here.json, and
//   - the crJSON of every file with a C2PA manifest in ../shared/corpus (files/ and ai/), made
//     by the built CLI (`provenance check --crjson`, an empty config folder, no flags),
// and writes their outputs to test/fixtures/asset-rubrics/oracle.json with the commits they came
// from. Each corpus file's crJSON is recorded beside the answers: the test evaluates the same
// document (the anchors a default read uses may change with a release; the answers are about the
// rubric, not the trust list).
//
// Usage (needs python3 with PyYAML, Debian's python3-yaml; and the two repositories as git dirs):
//   npm run build
//   node scripts/rubric-oracle.mjs CONFORMANCE_PUBLIC_GIT_DIR JSON_FORMULA_PY_GIT_DIR
// e.g. node scripts/rubric-oracle.mjs /work/.mirror/c2pa-org+conformance-public/repo /work/.mirror/adobe+json-formula-py/repo
//
// Held-out comparison (writes nothing): --compare DIR runs the evaluators on the crJSON of every
// file under DIR that carries a manifest and compares their output with what the built CLI's
// `check --rubric signals|conformance-2.2|conformance-2.4` prints for the same file, trait by
// trait (true and false, per manifest) and as a whole; one line per file and rubric, exit 1 on
// any difference. The files never enter the repository (issue 38's held-out acceptance).
//   node scripts/rubric-oracle.mjs --compare DIR CONFORMANCE_PUBLIC_GIT_DIR JSON_FORMULA_PY_GIT_DIR
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { isDeepStrictEqual } from 'node:util';

const CONFORMANCE_COMMIT = '7dbff513b66e36184619286fe734beea32f2e6db';
const RUBRICS = {
  signals: { file: 'asset-rubric-signals-local.yml', evaluator: 'c2pa_signals_rubric_evaluator.py' },
  'conformance-2.2': { file: 'asset-rubric-conformance0.2-spec2.2.yml', evaluator: 'c2pa_conformance_rubric_evaluator.py' },
  'conformance-2.4': { file: 'asset-rubric-conformance0.2-spec2.4.yml', evaluator: 'c2pa_conformance_rubric_evaluator.py' },
};
const CORPUS = process.env.PROVENANCE_CORPUS ?? '../shared/corpus';

const args = process.argv.slice(2);
const compareDir = args[0] === '--compare' ? args[1] : undefined;
const [conformanceGit, jsonFormulaGit] = compareDir === undefined ? args : args.slice(2);
if (!conformanceGit || !jsonFormulaGit || (args[0] === '--compare' && !compareDir)) {
  console.error('usage: node scripts/rubric-oracle.mjs [--compare DIR] CONFORMANCE_PUBLIC_GIT_DIR JSON_FORMULA_PY_GIT_DIR');
  process.exit(2);
}
const git = (dir, ...args) => execFileSync('git', ['-C', dir, ...args], { maxBuffer: 64 << 20 }).toString();

const work = mkdtempSync(join(tmpdir(), 'rubric-oracle-'));
try {
  // The evaluators at the commit the shipped rubrics came from (their names hold no "specN.N":
  // the conformance evaluator reads the expected spec version from the rubric's path).
  const evaluators = join(work, 'evaluators');
  execFileSync('mkdir', ['-p', evaluators]);
  for (const name of ['c2pa_signals_rubric_evaluator.py', 'c2pa_conformance_rubric_evaluator.py']) {
    writeFileSync(join(evaluators, name), git(conformanceGit, 'show', `${CONFORMANCE_COMMIT}:asset-rubrics/${name}`));
  }
  const jsonFormula = join(work, 'json-formula-py');
  execFileSync('git', ['clone', '-q', jsonFormulaGit, jsonFormula]);
  const jsonFormulaCommit = git(jsonFormula, 'rev-parse', 'HEAD').trim();
  const env = { ...process.env, PYTHONPATH: `${join(jsonFormula, 'src')}:${evaluators}` };

  const evaluate = (crJson, rubric) => {
    const input = join(work, 'asset.json');
    writeFileSync(input, JSON.stringify(crJson));
    const { file, evaluator } = RUBRICS[rubric];
    const out = execFileSync('python3', [join(evaluators, evaluator), join('data/c2pa/asset-rubrics', file), input], { env, stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 << 20 });
    return JSON.parse(out.toString());
  };
  const answers = (crJson) => Object.fromEntries(Object.keys(RUBRICS).map((r) => [r, evaluate(crJson, r)]));

  // Every file under dir, sorted (the corpus's and a held-out folder's notes are .json/.md/.tsv).
  const filesUnder = (dir, files = []) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) filesUnder(path, files);
      else if (!/\.(json|md|tsv)$/.test(name)) files.push(path);
    }
    return files;
  };
  // The built CLI as users run it, with an empty config folder and no flags.
  const config = join(work, 'config');
  const cli = (...args) =>
    execFileSync(process.execPath, ['bin/provenance.js', 'check', ...args], { env: { ...process.env, PROVENANCE_CONFIG_DIR: config }, stdio: ['ignore', 'pipe', 'ignore'], maxBuffer: 64 << 20 }).toString();
  /** The file's crJSON, or undefined when it has no manifest (or one c2pa-rs cannot read). */
  const crJsonOf = (path) => {
    try {
      return JSON.parse(cli('--crjson', path));
    } catch {
      return undefined;
    }
  };

  if (compareDir !== undefined) {
    process.exitCode = compare(filesUnder(compareDir), crJsonOf, evaluate, (rubric, path) => JSON.parse(cli('--rubric', rubric, path)), compareDir) ? 0 : 1;
  } else {
    const madeHere = JSON.parse(readFileSync('test/fixtures/asset-rubrics/crjson-made-here.json', 'utf8')).documents;
    const made = {};
    for (const [name, doc] of Object.entries(madeHere)) made[name] = answers(doc);

    const corpus = {};
    if (existsSync(CORPUS)) {
      const files = ['files', 'ai'].filter((sub) => existsSync(join(CORPUS, sub))).flatMap((sub) => filesUnder(join(CORPUS, sub)));
      for (const path of files) {
        const crJson = crJsonOf(path);
        if (crJson === undefined) continue; // no crJSON to evaluate
        const sha256 = createHash('sha256').update(readFileSync(path)).digest('hex');
        corpus[relative(CORPUS, path)] = { sha256, crjson: crJson, ...answers(crJson) };
      }
    }
    const oracle = {
      about: 'Answers of the C2PA official rubric evaluators (Python), recorded by scripts/rubric-oracle.mjs; test/rubric-oracle.test.ts holds provenance\'s answers to them.',
      command: `node scripts/rubric-oracle.mjs ${conformanceGit} ${jsonFormulaGit}`,
      conformance_public: { repository: 'c2pa-org/conformance-public', commit: CONFORMANCE_COMMIT },
      json_formula_py: { repository: 'adobe/json-formula-py', commit: jsonFormulaCommit },
      pyyaml: execFileSync('python3', ['-c', 'import yaml; print(yaml.__version__)']).toString().trim(),
      made_here: made,
      corpus,
    };
    writeFileSync('test/fixtures/asset-rubrics/oracle.json', `${JSON.stringify(oracle, null, 1)}\n`);
    console.log(`oracle.json: ${Object.keys(made).length} documents made here, ${Object.keys(corpus).length} corpus files with a manifest`);
  }
} finally {
  rmSync(work, { recursive: true, force: true });
}

/**
 * The traits a rubric's output raises, keyed where they belong: per manifest (signals: each
 * manifest's inceptions and transformations, then each ingredient's) or per outcome and category
 * (conformance: true, false, warning).
 */
function traitsOf(output, rubric) {
  const names = (list) => (list ?? []).map((s) => s.trait).sort();
  if (rubric === 'signals') {
    return Object.fromEntries(
      output.manifests.map((m, i) => [`manifest ${i} (${m.assertedBy?.subject?.CN ?? 'unknown signer'})`, [...names(m.localInceptions), ...names(m.localTransformations)]]),
    );
  }
  return Object.fromEntries(
    ['true', 'false', 'warning'].flatMap((outcome) => Object.entries(output[outcome] ?? {}).map(([category, list]) => [`${outcome}.${category}`, names(list)])),
  );
}

/** Where two outputs first differ, as a JSON path (for the line that names a difference). */
function firstDifference(a, b, path = '$') {
  if (isDeepStrictEqual(a, b)) return undefined;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return path;
  for (const key of new Set([...Object.keys(a), ...Object.keys(b)])) {
    const at = firstDifference(a[key], b[key], Array.isArray(a) ? `${path}[${key}]` : `${path}.${key}`);
    if (at !== undefined) return at;
  }
  return path;
}

/** Prints one line per file and rubric; true when every output equals the evaluators'. */
function compare(files, crJsonOf, evaluate, rubricOf, dir) {
  let same = true;
  let withManifest = 0;
  for (const path of files) {
    const crJson = crJsonOf(path);
    const file = relative(dir, path);
    if (crJson === undefined) {
      console.log(`${file}\t-\tno manifest read: nothing to compare`);
      continue;
    }
    withManifest += 1;
    for (const rubric of Object.keys(RUBRICS)) {
      const theirs = evaluate(crJson, rubric);
      const ours = rubricOf(rubric, path);
      const [t, o] = [traitsOf(theirs, rubric), traitsOf(ours, rubric)];
      const differences = [];
      for (const key of new Set([...Object.keys(t), ...Object.keys(o)])) {
        const onlyTheirs = (t[key] ?? []).filter((x) => !(o[key] ?? []).includes(x));
        const onlyOurs = (o[key] ?? []).filter((x) => !(t[key] ?? []).includes(x));
        if (onlyTheirs.length > 0) differences.push(`${key}: only the evaluator ${onlyTheirs.join(' ')}`);
        if (onlyOurs.length > 0) differences.push(`${key}: only provenance ${onlyOurs.join(' ')}`);
      }
      const whole = firstDifference(ours, theirs);
      if (differences.length === 0 && whole !== undefined) differences.push(`same traits; outputs first differ at ${whole}`);
      // How many traits each side of the outcome holds: signals count per manifest, conformance per outcome.
      const tally = rubric === 'signals'
        ? `${Object.values(t).map((list) => list.length).join('+')} traits over ${Object.keys(t).length} manifests`
        : ['true', 'false', 'warning'].map((k) => `${Object.entries(t).filter(([key]) => key.startsWith(`${k}.`)).flatMap(([, list]) => list).length} ${k}`).join(', ');
      console.log(`${file}\t${rubric}\t${differences.length === 0 ? `same (${tally}; whole output equal)` : `DIFFERENT: ${differences.join('; ')}`}`);
      if (differences.length > 0) same = false;
    }
  }
  console.log(`${withManifest} of ${files.length} files carry a manifest; ${same ? 'every output equals the evaluators\'' : 'differences above'}`);
  return same;
}
