// Midjourney's records. A picture downloaded from midjourney.com is a PNG with tEXt `Creation
// Time`, `Author`, `Description` ("<prompt> --ar ... Job ID: <uuid>") and an iTXt
// `XML:com.adobe.xmp` packet whose rdf:Description carries Iptc4xmpExt:DigImageGUID = the same
// job id and Iptc4xmpExt:DigitalSourceType = trainedAlgorithmicMedia (the layout picteus/picteus
// extensions/instances/midjourney/src/instructions.ts reads, and its main.test.ts pins).
//
// The Description with its Job ID is Midjourney's full record (structured). The XMP fields alone
// (what is left when a tool keeps the XMP and drops the text chunks, or copies the XMP into a
// JPEG) are a hint: DigImageGUID is the IPTC Extension's generic "Digital Image GUID", which any
// tool may set, so a UUID there beside the AI source type is only Midjourney's form, not its
// name. Metadata readers treat it as Midjourney's signature all the same (Ktiseos-Nyx/
// Dataset-Tools dataset_tools/vendored_sdpr/format/midjourney.py, signature XMP_DIGITAL_GUID);
// here it is named Midjourney below a field that names a tool, with a note that says so.
import type { GeneratorRecord } from '../types.js';
import { RANK, clipPrompt, type Candidate } from './generator-fields.js';

// No leading `\s*`: unanchored, it would retry from every character of a long run of spaces
// (quadratic); the spaces before "Job ID" are trimmed off the prompt instead.
const MIDJOURNEY_JOB = /Job ID:\s*[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/i;
/** A job id as Midjourney writes it into DigImageGUID: a UUID and nothing else. Anchored, fixed
 * counts, no nested quantifier: linear in the value (at most 1,024 characters, xmpProperty). */
const JOB_ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
/** The IPTC source type Midjourney writes; a composite or any other type is not its form. */
const TRAINED_ALGORITHMIC_MEDIA = /\/trainedAlgorithmicMedia$/;

/** Where the hint is read from (docs/DETECTORS.md; the verdict words it as a hint). */
export const MIDJOURNEY_GUID_WHERE = 'xmp:Iptc4xmpExt:DigImageGUID';

/** A Description, ImageDescription or dc:description with "Job ID: <uuid>": Midjourney's record. */
export function midjourneyCandidate(text: string | undefined, where: string): Candidate | undefined {
  if (!text) return undefined;
  const m = MIDJOURNEY_JOB.exec(text);
  if (!m) return undefined;
  const record: GeneratorRecord = { tool: 'midjourney', app: 'Midjourney', where };
  const prompt = clipPrompt(text.slice(0, m.index).trimEnd());
  if (prompt) record.prompt = prompt;
  return { record, rank: RANK.generic, strength: 'structured' };
}

/**
 * XMP DigImageGUID shaped as a job id beside DigitalSourceType trainedAlgorithmicMedia: Midjourney
 * as a hint (rank `inferred`: any record that names a tool wins). The record has no field for a
 * job id, so the note carries it as written.
 */
export function midjourneyGuidCandidate(guid: string | undefined, sourceType: string | undefined): Candidate | undefined {
  if (!guid || !sourceType || !JOB_ID.test(guid) || !TRAINED_ALGORITHMIC_MEDIA.test(sourceType)) return undefined;
  return {
    record: { tool: 'midjourney', app: 'Midjourney', where: MIDJOURNEY_GUID_WHERE },
    rank: RANK.inferred,
    strength: 'inferred',
    note:
      `Named Midjourney from XMP Iptc4xmpExt:DigImageGUID ${guid} (a job id, as Midjourney writes it) beside ` +
      'DigitalSourceType trainedAlgorithmicMedia; both are IPTC fields that any tool could write.',
  };
}
