// provenance's rubric answers against the C2PA's own: the official Python evaluators' outputs,
// recorded in test/fixtures/asset-rubrics/oracle.json by scripts/rubric-oracle.mjs (its header
// says how; the file names the conformance-public and json-formula-py commits). Every crJSON
// document made here (crjson-made-here.json) and every corpus file with a manifest must give the
// same output, trait for trait, true and false, per manifest; and each output is valid against
// the official output schema.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Ajv from 'ajv';
import { describe, expect, it } from 'vitest';
import { evaluateConformance } from '../src/rubrics/conformance.js';
import type { RubricName } from '../src/rubrics/rubric-files.js';
import { loadRubric } from '../src/rubrics/shipped-rubrics.js';
import { evaluateSignals } from '../src/rubrics/signals.js';
import { CORPUS_DIR, HAS_CORPUS, loadExpected } from './helpers/corpus.js';
import { runCli } from './helpers/run-cli.js';

const FIXTURES = join(import.meta.dirname, 'fixtures', 'asset-rubrics');
const read = (name: string) => JSON.parse(readFileSync(join(FIXTURES, name), 'utf8'));
const oracle = read('oracle.json') as {
  conformance_public: { commit: string };
  json_formula_py: { commit: string };
  made_here: Record<string, Record<RubricName, unknown>>;
  corpus: Record<string, { sha256: string; crjson: unknown } & Record<RubricName, unknown>>;
};
const madeHere = read('crjson-made-here.json').documents as Record<string, unknown>;
const RUBRICS: RubricName[] = ['signals', 'conformance-2.2', 'conformance-2.4'];

/** The shipped rubrics as a run takes them (built: read and compiled by the build). */
const SHIPPED = Object.fromEntries(await Promise.all(RUBRICS.map(async (r) => [r, await loadRubric(r)] as const)));

const ajv = new Ajv({ strict: false, allErrors: true });
const signalsSchema = ajv.compile(read('asset-rubric-signals-local-output.schema.json'));
const conformanceSchema = ajv.compile(read('asset-rubric-conformance-output.schema.json'));

function ours(crJson: unknown, rubric: RubricName): unknown {
  return rubric === 'signals' ? evaluateSignals(crJson) : evaluateConformance(crJson, SHIPPED[rubric]!);
}

function valid(output: unknown, rubric: RubricName): void {
  const validate = rubric === 'signals' ? signalsSchema : conformanceSchema;
  expect(validate(output), JSON.stringify(validate.errors)).toBe(true);
}

/** Each manifest's traits (signals), or each outcome's traits (conformance): the comparison's headline. */
function traits(output: unknown, rubric: RubricName): unknown {
  if (rubric === 'signals') {
    return (output as { manifests: { localInceptions: { trait: string }[]; localTransformations: { trait: string }[] }[] }).manifests.map((m) =>
      [...m.localInceptions, ...m.localTransformations].map((s) => s.trait),
    );
  }
  const o = output as Record<'true' | 'false' | 'warning', Record<string, { trait: string }[]>>;
  return Object.fromEntries((['true', 'false', 'warning'] as const).map((k) => [k, Object.values(o[k]).flat().map((e) => e.trait).sort()]));
}

describe('the rubrics against the official evaluators', () => {
  it('the oracle names where its answers came from, and covers every document made here', () => {
    expect(oracle.conformance_public.commit).toBe('7dbff513b66e36184619286fe734beea32f2e6db');
    expect(oracle.json_formula_py.commit).toMatch(/^[0-9a-f]{40}$/);
    expect(Object.keys(oracle.made_here).sort()).toEqual(Object.keys(madeHere).sort());
  });

  it.each(Object.keys(madeHere))('%s: the same output as the C2PA evaluators, for every rubric', (name) => {
    for (const rubric of RUBRICS) {
      const output = JSON.parse(JSON.stringify(ours(madeHere[name], rubric)));
      expect(traits(output, rubric), `${name} ${rubric}`).toEqual(traits(oracle.made_here[name]![rubric], rubric));
      expect(output, `${name} ${rubric}`).toEqual(oracle.made_here[name]![rubric]);
      valid(output, rubric);
    }
  });

  it('the documents made here reach the signals the verdict maps (so the table is tested on answers the C2PA gave)', () => {
    const raised = new Set(
      Object.values(oracle.made_here).flatMap((a) => (a.signals as { manifests: { localInceptions: { trait: string }[]; localTransformations: { trait: string }[] }[] }).manifests.flatMap((m) => [...m.localInceptions, ...m.localTransformations].map((s) => s.trait))),
    );
    for (const trait of [
      'inception:signal_fullyGenAIMedia',
      'inception:signal_partlyGenAICreation',
      'inception:signal_capturedMedia',
      'inception:signal_compositionMayContainGenAI',
      'inception:signal_screenCaptureMayContainGenAI',
      'inception:signal_mediaUnknownProvenance',
      'transformation:signal_perceptibleGenAI',
      'transformation:signal_perceptiblePossiblyGenAI',
      'transformation:signal_nonEditorial',
      'transformation:signal_ambiguousActions',
    ]) {
      expect(raised, trait).toContain(trait);
    }
  });
});

describe.skipIf(!HAS_CORPUS)('the rubrics on every corpus file with a manifest (../shared/corpus)', () => {
  it('the oracle holds every corpus file that carries a manifest, as it is now', () => {
    const withManifest = Object.entries(loadExpected())
      .filter(([, e]) => e.c2pa.result === 'found')
      .map(([name]) => `files/${name}`);
    expect(Object.keys(oracle.corpus).sort()).toEqual(expect.arrayContaining(withManifest.sort()));
    for (const [file, entry] of Object.entries(oracle.corpus)) {
      expect(createHash('sha256').update(readFileSync(join(CORPUS_DIR, file))).digest('hex'), file).toBe(entry.sha256);
    }
  });

  it.each(Object.keys(oracle.corpus))('%s: the same output as the C2PA evaluators, for every rubric', (file) => {
    const entry = oracle.corpus[file]!;
    for (const rubric of RUBRICS) {
      const output = JSON.parse(JSON.stringify(ours(entry.crjson, rubric)));
      expect(traits(output, rubric), `${file} ${rubric}`).toEqual(traits(entry[rubric], rubric));
      expect(output, `${file} ${rubric}`).toEqual(entry[rubric]);
      valid(output, rubric);
    }
  });

  it.each(Object.keys(oracle.corpus))('%s: check --rubric signals gives the C2PA evaluator\'s signals', async (file) => {
    // The signals read actions and ingredients, not the trust list: whatever anchors a default
    // read uses, the traits are the evaluator's.
    const run = await runCli(['check', '--rubric', 'signals', join(CORPUS_DIR, file)]);
    expect(run.code, run.stderr).toBe(0);
    expect(traits(JSON.parse(run.stdout), 'signals')).toEqual(traits(oracle.corpus[file]!.signals, 'signals'));
  });
});
