// The C2PA Asset Rubrics shipped as data (data/c2pa/asset-rubrics/, byte for byte as the C2PA
// publishes them; data/c2pa/README.md): which file each `--rubric` name is, and a rubric read
// into its metadata and statements as the official evaluators split the YAML documents. Read
// once per process, and only when a manifest was found.
import { readFileSync } from 'node:fs';
import { packageDataFile } from '../media/package-data.js';
import { parseYamlDocuments } from './rubric-yaml.js';

/** `--rubric` names and the rubric file each one evaluates. */
export type RubricName = 'signals' | 'conformance-2.2' | 'conformance-2.4';

export const RUBRIC_FILES: Readonly<Record<RubricName, string>> = {
  signals: 'asset-rubric-signals-local.yml',
  'conformance-2.2': 'asset-rubric-conformance0.2-spec2.2.yml',
  'conformance-2.4': 'asset-rubric-conformance0.2-spec2.4.yml',
};
export const RUBRIC_NAMES = Object.keys(RUBRIC_FILES) as RubricName[];

export function isRubricName(name: string): name is RubricName {
  return Object.prototype.hasOwnProperty.call(RUBRIC_FILES, name);
}

export interface RubricMetadata {
  rubric_metadata?: { name?: unknown; version?: unknown };
  variables?: Record<string, unknown>;
  expressions?: Record<string, unknown>;
}

/** One rubric statement (a trait): the fields the evaluators read. */
export interface RubricStatement {
  id?: unknown;
  expression?: unknown;
  reportText?: Record<string, unknown>;
  failIfMatched?: unknown;
  warnIfMatched?: unknown;
  [key: string]: unknown;
}

export interface Rubric {
  file: string;
  metadata: RubricMetadata;
  statements: RubricStatement[];
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/**
 * A rubric from its YAML text: the first document is the metadata (when it is a mapping), the
 * statements are every later document's list items, or the document itself when it is a
 * mapping that is not a `block` (both evaluators' rule).
 */
export function rubricFromText(text: string, file: string): Rubric {
  const docs = parseYamlDocuments(text);
  const metadata = (docs.length > 0 && isRecord(docs[0]) ? docs[0] : {}) as RubricMetadata;
  const statements: RubricStatement[] = [];
  for (const doc of docs.slice(1)) {
    if (Array.isArray(doc)) statements.push(...(doc as RubricStatement[]));
    else if (isRecord(doc) && !('block' in doc)) statements.push(doc as RubricStatement);
  }
  return { file, metadata, statements };
}

const loaded = new Map<RubricName, Rubric>();

/** The shipped rubric of that name, read once per process. */
export function loadRubric(name: RubricName): Rubric {
  let rubric = loaded.get(name);
  if (!rubric) {
    const file = RUBRIC_FILES[name];
    rubric = rubricFromText(readFileSync(packageDataFile('c2pa', 'asset-rubrics', file), 'utf8'), file);
    loaded.set(name, rubric);
  }
  return rubric;
}

/** `rubric_metadata.name` / `.version`, "Unknown" when absent (the evaluators' default). */
export function rubricLabel(rubric: Rubric): { name: unknown; version: unknown } {
  const meta = isRecord(rubric.metadata.rubric_metadata) ? rubric.metadata.rubric_metadata : {};
  return { name: 'name' in meta ? meta.name : 'Unknown', version: 'version' in meta ? meta.version : 'Unknown' };
}
