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
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';

const CONFORMANCE_COMMIT = '7dbff513b66e36184619286fe734beea32f2e6db';
const RUBRICS = {
  signals: { file: 'asset-rubric-signals-local.yml', evaluator: 'c2pa_signals_rubric_evaluator.py' },
  'conformance-2.2': { file: 'asset-rubric-conformance0.2-spec2.2.yml', evaluator: 'c2pa_conformance_rubric_evaluator.py' },
  'conformance-2.4': { file: 'asset-rubric-conformance0.2-spec2.4.yml', evaluator: 'c2pa_conformance_rubric_evaluator.py' },
};
const CORPUS = process.env.PROVENANCE_CORPUS ?? '../shared/corpus';

const [conformanceGit, jsonFormulaGit] = process.argv.slice(2);
if (!conformanceGit || !jsonFormulaGit) {
  console.error('usage: node scripts/rubric-oracle.mjs CONFORMANCE_PUBLIC_GIT_DIR JSON_FORMULA_PY_GIT_DIR');
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

  const madeHere = JSON.parse(readFileSync('test/fixtures/asset-rubrics/crjson-made-here.json', 'utf8')).documents;
  const made = {};
  for (const [name, doc] of Object.entries(madeHere)) made[name] = answers(doc);

  const corpus = {};
  if (existsSync(CORPUS)) {
    const config = join(work, 'config');
    const files = [];
    const walk = (dir) => {
      for (const name of readdirSync(dir).sort()) {
        const path = join(dir, name);
        if (statSync(path).isDirectory()) walk(path);
        else if (!name.endsWith('.json') && !name.endsWith('.md')) files.push(path);
      }
    };
    for (const sub of ['files', 'ai']) if (existsSync(join(CORPUS, sub))) walk(join(CORPUS, sub));
    for (const path of files) {
      let text;
      try {
        text = execFileSync(process.execPath, ['bin/provenance.js', 'check', '--crjson', path], { env: { ...process.env, PROVENANCE_CONFIG_DIR: config }, stdio: ['ignore', 'pipe', 'ignore'] }).toString();
      } catch {
        continue; // no manifest (or one c2pa-rs cannot read): no crJSON to evaluate
      }
      const crJson = JSON.parse(text);
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
} finally {
  rmSync(work, { recursive: true, force: true });
}
