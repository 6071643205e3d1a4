// The rubric's name and version as both evaluators print them at the head of their output. Apart
// from rubric-files.ts (which the CLI and the library load for the rubric names) so that it goes
// with the json-formula engine, in the one output file both evaluators load.
import type { Rubric } from './rubric-files.js';

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** `rubric_metadata.name` / `.version`, "Unknown" when absent (the evaluators' default). */
export function rubricLabel(rubric: Rubric): { name: unknown; version: unknown } {
  const meta = isRecord(rubric.metadata.rubric_metadata) ? rubric.metadata.rubric_metadata : {};
  return { name: 'name' in meta ? meta.name : 'Unknown', version: 'version' in meta ? meta.version : 'Unknown' };
}
