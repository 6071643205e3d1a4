// generator_metadata: the records that image generators write into the file itself (CONTRACT
// "Detectors beyond the hosted catalogue"): PNG text chunks, EXIF UserComment/Make/Model/
// Software/ImageDescription, XMP, and payloads hidden in the alpha channel.
//
// Which record is reported when a file holds several (candidates sorted by rank, then strength,
// then the order they were found in):
//   1. a NovelAI record whose Ed25519 signature verifies (the only record anyone cannot forge);
//   2. the tools whose own record is unmistakable and that also write other tools' generic
//      chunks: NovelAI (unsigned, or signature invalid), SwarmUI, Tensor.Art, Stability Matrix,
//      Fooocus (and FooocusPlus), RuinedFooocus, InvokeAI (SwarmUI and Tensor.Art also write a
//      ComfyUI graph, Stability Matrix and Fooocus an AUTOMATIC1111-style text: the specific
//      record wins);
//   3. the generic formats: AUTOMATIC1111 `parameters` (and forks), a ComfyUI graph, a
//      Midjourney description with its Job ID; a ComfyUI graph beside an A1111-style text
//      (several ComfyUI save nodes write both) is reported instead of the text, which only fills
//      what the graph lacks (generator-comfyui-forms.ts);
//   4. a line that only names the tool: XMP photoshop:Credit "Made with Google AI" (or Vertex AI's
//      "AI-Generated with Google"), a Software or
//      CreatorTool naming OpenAI or Adobe Firefly, a Software "NovelAI" without its record;
//   5. fields whose form points to a tool without naming it: XMP DigImageGUID holding a job id
//      beside DigitalSourceType trainedAlgorithmicMedia, as Midjourney writes them
//      (generator-midjourney.ts; reported as Midjourney with a note);
//   6. an XMP Iptc4xmpExt:DigitalSourceType of trained algorithmic media without any tool named
//      (reported with tool `unknown`).
// Within one tool the file-level copy comes before the alpha-channel copy (as the corpus does).
//
// Confidence. Metadata is writable by anyone, so nothing but a valid signature reaches 0.9
// (CONTRACT): 0.99 a valid NovelAI signature; 0.85 the tool's own full record (a parameters text
// with its settings line, a node graph, the tool's JSON): people rarely forge these, but they copy
// them between files; 0.75 a field that only names the tool; 0.7 a NovelAI record whose signature
// does not verify (the pixels or the record changed after NovelAI signed them, or the record was
// copied onto another picture); 0.65 fields whose form points to a tool they do not name
// (Midjourney's XMP job id); 0.6 an IPTC source type alone. not_found is 0.6: absence proves
// little, since most sites and editors strip these records.
//
// Cost. A camera JPEG costs the EXIF and XMP reads only. A PNG with an alpha channel has its first
// 120 rows decoded to look for a stealth payload's magic (alpha-probe.ts); the whole picture is
// decoded (once per file, shared with invisible_watermark through decodePixels) only when the
// magic is there, for a WebP with alpha, or to check a NovelAI signature.
import type { KeyObject } from 'node:crypto';
import type { Detector, DetectorOutcome, GeneratorRecord, Media } from '../types.js';
import { readAlphaStealth } from '../media/alpha-lsb.js';
import { probeStealthMagic } from '../media/alpha-probe.js';
import { decodePixels, PixelDecodeError, type RawPixels } from '../media/pixels.js';
import { IPTC_EXT_NAMESPACE, xmpProperty } from '../media/xmp-hints.js';
import { a1111Candidate } from './generator-a1111.js';
import { comfyPromptCandidate, comfyWorkflowCandidate } from './generator-comfyui.js';
import { comfyExifTagsCandidate, comfyUserCommentCandidate, graphOverText } from './generator-comfyui-forms.js';
import { RANK, parseJsonObject, type Candidate, type Strength } from './generator-fields.js';
import { asFooocusPlus, fooocusPlusCandidate, fooocusPlusNameCandidate, hasBackendEngine, namesFooocusPlus } from './generator-fooocus.js';
import { dreamRecord, invokeSdMetadataRecord } from './generator-invokeai.js';
import {
  invokeMetadataCandidate,
  jsonToolCandidate,
  stabilityMatrixCandidate,
  tensorArtCandidate,
} from './generator-json-tools.js';
import { midjourneyCandidate, midjourneyGuidCandidate } from './generator-midjourney.js';
import { alphaNovelAiFields, novelAiCandidate } from './generator-novelai.js';
import { field, readFileFields, type FileFields } from './generator-sources.js';
import { carriesSignedHash, checkNovelAiSignature, type SignatureState } from './novelai-signature.js';

export const CONFIDENCE = {
  signed: 0.99,
  structured: 0.85,
  named: 0.75,
  signatureInvalid: 0.7,
  inferred: 0.65,
  unnamed: 0.6,
  notFound: 0.6,
} as const;

const STRENGTH_ORDER: Record<Strength, number> = { structured: 0, named: 1, inferred: 2, unnamed: 3 };

const XMP_NS = {
  photoshop: 'http://ns.adobe.com/photoshop/1.0/',
  xmp: 'http://ns.adobe.com/xap/1.0/',
  dc: 'http://purl.org/dc/elements/1.1/',
};

/** Google's credit lines: "Made with Google AI" (Gemini, Pixel), "Edited with Google AI", and
 * "AI-Generated with Google" (Imagen on Vertex AI, beside DigitalSourceType trainedAlgorithmicMedia). */
const GOOGLE_CREDIT = /^(?:(?:Made|Edited) with Google AI|AI[- ]Generated with Google)\b/i;
/** "DALL·E 3", "DALL-E", "ChatGPT", "OpenAI", "gpt-image-1"; not a bare "Dalle" (a surname). */
const OPENAI_NAME = /\b(DALL[·\-‧. ]E(?: ?[23])?|ChatGPT|OpenAI|gpt-image-\d)\b/i;
const FIREFLY_NAME = /\bAdobe Firefly\b/i;
/** IPTC digital source types that say a trained model made (or took part in making) the picture. */
const AI_SOURCE_TYPE = /\/(trainedAlgorithmicMedia|compositeWithTrainedAlgorithmicMedia)$/;

/** An AUTOMATIC1111-style record that Fooocus wrote (its "a1111" scheme), told by another field. */
function asFooocus(c: Candidate | undefined, fooocusNamed: boolean): Candidate | undefined {
  if (!c || !fooocusNamed || c.record.tool !== 'automatic1111') return c;
  return { ...c, record: { ...c.record, tool: 'fooocus', app: 'Fooocus' }, rank: RANK.specific };
}

function named(record: GeneratorRecord, rank: number = RANK.credit): Candidate {
  return { record, rank, strength: 'named' };
}

/** A tool named in a free-text field (Software, CreatorTool, Credit). */
function nameCandidate(text: string | undefined, where: string): Candidate | undefined {
  if (!text) return undefined;
  if (GOOGLE_CREDIT.test(text)) return named({ tool: 'google_ai', app: 'Google AI', where });
  if (FIREFLY_NAME.test(text)) return named({ tool: 'adobe_firefly', app: 'Adobe Firefly', where });
  if (OPENAI_NAME.test(text)) return named({ tool: 'openai', app: 'OpenAI', where });
  if (/^NovelAI\b/.test(text)) return named({ tool: 'novelai', app: 'NovelAI', where }, RANK.specific);
  if (/^Fooocus\b/.test(text)) return named({ tool: 'fooocus', app: 'Fooocus', where }, RANK.specific);
  if (/^Midjourney\b/i.test(text)) return named({ tool: 'midjourney', app: 'Midjourney', where });
  return undefined;
}

/** The records of the PNG text chunks. */
function pngCandidates(f: FileFields, out: Candidate[]): void {
  const get = (name: string) => field(f, name);
  const push = (c: Candidate | undefined) => c && out.push(c);
  const fooocusScheme = get('fooocus_scheme');

  // Pushed with the ComfyUI graph below: a graph beside an A1111-style text wins (graphOverText).
  const parameters = get('parameters');
  let parametersRecord: Candidate | undefined;
  if (parameters) {
    const json = parseJsonObject(parameters.text);
    parametersRecord = json
      ? asFooocusPlus(jsonToolCandidate(parameters.text, parameters.where, json, fooocusScheme !== undefined), hasBackendEngine(json))
      : asFooocus(a1111Candidate(parameters.text, parameters.where), fooocusScheme !== undefined);
  }
  const smJson = get('parameters-json');
  const smProject = get('smproj');
  if (smJson) push(stabilityMatrixCandidate(smJson.text, smJson.where));
  else if (smProject) push(named({ tool: 'stability_matrix', app: 'Stability Matrix', where: smProject.where }, RANK.specific));
  const tensorArt = get('generation_data');
  if (tensorArt) push(tensorArtCandidate(tensorArt.text, tensorArt.where));

  const invoke = get('invokeai_metadata');
  const invokeGraph = get('invokeai_graph');
  const sdMetadata = get('sd-metadata');
  const dream = get('Dream');
  if (invoke) push(invokeMetadataCandidate(invoke.text, invoke.where) ?? named({ tool: 'invokeai', app: 'InvokeAI', where: invoke.where }, RANK.specific));
  else if (invokeGraph) push(named({ tool: 'invokeai', app: 'InvokeAI', where: invokeGraph.where }, RANK.specific));
  if (sdMetadata) push(invokeSdMetadataRecord(sdMetadata.text, sdMetadata.where));
  if (dream) push(dreamRecord(dream.text, dream.where));

  const prompt = get('prompt');
  const workflow = get('workflow');
  const comfy = prompt ? comfyPromptCandidate(prompt.text, prompt.where) : undefined;
  const graph = comfy ?? (workflow ? comfyWorkflowCandidate(workflow.text, workflow.where) : undefined);
  for (const c of graphOverText(parametersRecord, graph)) push(c);

  const comment = get('Comment');
  const software = get('Software');
  if (comment) push(fooocusPlusCandidate(parseJsonObject(comment.text), comment.text, comment.where, false));
  push(
    novelAiCandidate(
      { software: software?.text, source: get('Source')?.text, description: get('Description')?.text, comment: comment?.text },
      (comment ?? software)?.where ?? 'png:tEXt:Comment',
    ),
  );
  const description = get('Description');
  if (description) push(midjourneyCandidate(description.text, description.where));
  if (software) push(nameCandidate(software.text, software.where));
}

/** The records of the EXIF text fields (JPEG, WebP). */
function exifCandidates(f: FileFields, out: Candidate[]): void {
  const get = (name: string) => field(f, `exif:${name}`);
  const push = (c: Candidate | undefined) => c && out.push(c);
  const software = get('Software');
  const makerNote = get('MakerNote');
  // Fooocus writes its scheme name ("fooocus" or "a1111") as MakerNote and "Fooocus v..." as Software;
  // FooocusPlus "FooocusPlus <ver>, Preset: ..." and its scheme ("simple", "fooocus", "a1111").
  const plusNamed = namesFooocusPlus(software?.text);
  const fooocusNamed = /^fooocus$/i.test(makerNote?.text ?? '') || /^Fooocus\b/.test(software?.text ?? '') || plusNamed;

  // Pushed with the Make/Model graph below: a graph beside an A1111-style text wins (graphOverText).
  const comment = get('UserComment');
  let commentRecord: Candidate | undefined;
  if (comment) {
    const json = parseJsonObject(comment.text);
    if (json) {
      commentRecord =
        fooocusPlusCandidate(json, comment.text, comment.where, plusNamed) ??
        jsonToolCandidate(comment.text, comment.where, json, fooocusNamed) ??
        novelAiCandidate({ source: software?.text, description: get('ImageDescription')?.text, comment: comment.text }, comment.where) ??
        comfyUserCommentCandidate(json, comment.text, comment.where);
    } else commentRecord = asFooocusPlus(asFooocus(a1111Candidate(comment.text, comment.where), fooocusNamed), plusNamed);
  }
  const description = get('ImageDescription');
  const graph = comfyExifTagsCandidate({ make: get('Make'), model: get('Model'), description });
  for (const c of graphOverText(commentRecord, graph)) push(c);
  if (description) push(midjourneyCandidate(description.text, description.where));
  if (software) push(nameCandidate(software.text, software.where) ?? fooocusPlusNameCandidate(software.text, software.where));
}

/** The records of the XMP packet. */
function xmpCandidates(xmp: string | undefined, out: Candidate[]): void {
  if (!xmp) return;
  const push = (c: Candidate | undefined) => c && out.push(c);
  push(nameCandidate(xmpProperty(xmp, XMP_NS.photoshop, 'Credit'), 'xmp:photoshop:Credit'));
  push(nameCandidate(xmpProperty(xmp, XMP_NS.xmp, 'CreatorTool'), 'xmp:xmp:CreatorTool'));
  push(midjourneyCandidate(xmpProperty(xmp, XMP_NS.dc, 'description'), 'xmp:dc:description'));
  const sourceType = xmpProperty(xmp, IPTC_EXT_NAMESPACE, 'DigitalSourceType');
  if (sourceType && AI_SOURCE_TYPE.test(sourceType)) {
    push(midjourneyGuidCandidate(xmpProperty(xmp, IPTC_EXT_NAMESPACE, 'DigImageGUID'), sourceType));
    out.push({ record: { tool: 'unknown', where: 'xmp:Iptc4xmpExt:DigitalSourceType' }, rank: RANK.unnamed, strength: 'unnamed' });
  }
}

interface PixelRead {
  pixels?: RawPixels;
  problem?: string;
}

async function readPixels(bytes: Uint8Array): Promise<PixelRead> {
  try {
    return { pixels: await decodePixels(bytes) };
  } catch (err) {
    if (err instanceof PixelDecodeError) return { problem: err.message };
    throw err;
  }
}

/** The record an alpha-channel payload holds: NovelAI's JSON, or the extension's A1111 text. */
function alphaCandidate(pixels: RawPixels): Candidate | undefined {
  const stealth = readAlphaStealth(pixels);
  if (!stealth.found || stealth.text === undefined) return undefined;
  const where = `alpha-lsb:${stealth.magic}`;
  const nai = alphaNovelAiFields(stealth.text);
  return nai ? novelAiCandidate(nai, where) : a1111Candidate(stealth.text, where);
}

/**
 * Whether the alpha channel may hold a stealth payload: for a PNG, its first 120 rows are decoded
 * and the magic looked for (alpha-probe.ts); a WebP is decoded whole anyway, so it is assumed.
 */
async function stealthPossible(bytes: Uint8Array, f: FileFields): Promise<boolean> {
  if (!f.size) return true;
  try {
    return (await probeStealthMagic(bytes, f.size.width, f.size.height)) !== undefined;
  } catch (err) {
    if (err instanceof PixelDecodeError) return false; // pixels that cannot be decoded hold no payload we can read
    throw err;
  }
}

export interface GeneratorMetadataOptions {
  /** The key NovelAI signatures are checked with; NovelAI's published key unless a test sets one. */
  novelAiPublicKey?: KeyObject;
}

/** By rank, then strength; ties keep the order found (Array.prototype.sort is stable). */
function sortCandidates(candidates: Candidate[]): Candidate[] {
  return [...candidates].sort((a, b) => a.rank - b.rank || STRENGTH_ORDER[a.strength] - STRENGTH_ORDER[b.strength]);
}

/** Judges `media`: the most specific record found, or not_found, or unavailable. */
export async function judgeGeneratorMetadata(media: Media, options: GeneratorMetadataOptions = {}): Promise<DetectorOutcome> {
  const f = readFileFields(media.bytes, media.type);
  const candidates: Candidate[] = [];
  if (media.type === 'image/png') pngCandidates(f, candidates);
  exifCandidates(f, candidates); // JPEG APP1, WebP EXIF, and a PNG's eXIf chunk
  xmpCandidates(f.xmp, candidates);

  const notes: string[] = [];
  const signedComments = candidates.filter((c) => c.novelAiComment !== undefined && carriesSignedHash(c.novelAiComment));
  const canHoldPixels = media.type === 'image/png' || media.type === 'image/webp';
  const stealth = f.alpha && (await stealthPossible(media.bytes, f));
  let pixels: PixelRead | undefined;
  if (canHoldPixels && (stealth || signedComments.length > 0)) pixels = await readPixels(media.bytes);
  if (pixels?.pixels && stealth) {
    const alpha = alphaCandidate(pixels.pixels);
    if (alpha) candidates.push(alpha);
  }

  // NovelAI's signature: valid when either copy (file-level or alpha) verifies, as nai_sig.py.
  const novelAi = candidates.filter((c) => c.record.tool === 'novelai');
  let signature: SignatureState = 'absent';
  for (const c of novelAi) {
    if (c.novelAiComment === undefined || !carriesSignedHash(c.novelAiComment)) continue;
    let state: SignatureState;
    if (!canHoldPixels) state = 'invalid'; // NovelAI signs PNG and WebP pixels; a JPEG's are re-encoded
    else if (pixels?.pixels) state = checkNovelAiSignature(pixels.pixels, c.novelAiComment, options.novelAiPublicKey);
    else {
      notes.push(`The NovelAI signature could not be checked: ${pixels?.problem ?? 'the pixels could not be read'}.`);
      break;
    }
    if (state === 'valid' || signature === 'absent') signature = state;
    if (signature === 'valid') break;
  }
  const primaryNovelAi = sortCandidates(novelAi)[0];
  if (primaryNovelAi && signature !== 'absent') {
    primaryNovelAi.record.signature = signature;
    if (signature === 'valid') primaryNovelAi.rank = 0;
  }

  const best = sortCandidates(candidates)[0];
  if (best) {
    const confidence =
      best.record.signature === 'valid'
        ? CONFIDENCE.signed
        : best.record.signature === 'invalid'
          ? CONFIDENCE.signatureInvalid
          : CONFIDENCE[best.strength];
    const outcome: DetectorOutcome = { result: 'found', confidence, generator: best.record };
    if (best.note) notes.unshift(best.note);
    if (notes.length) outcome.note = notes.join(' ');
    return outcome;
  }
  if (f.damage?.blocking) {
    return {
      result: 'unavailable',
      confidence: 0,
      reason: `The file is damaged in a way the generator_metadata check cannot read: ${f.damage.clause}.`,
    };
  }
  const outcome: DetectorOutcome = { result: 'not_found', confidence: CONFIDENCE.notFound };
  if (f.damage) notes.push(`The file is damaged (${f.damage.clause}); records after its image data could not be read.`);
  if (notes.length) outcome.note = notes.join(' ');
  return outcome;
}

export const generatorMetadata: Detector = {
  id: 'generator_metadata',
  name: 'Generator metadata',
  description:
    'Reads the records that image generators write into the file: PNG text chunks, EXIF UserComment, Make, Model and Software, XMP, and payloads hidden in the alpha channel (AUTOMATIC1111 and its forks, ComfyUI, InvokeAI, NovelAI with its Ed25519 signature, SwarmUI, Fooocus, Midjourney, Google AI and others). Metadata can be written by anyone, so a match is a strong hint, not proof, unless the generator signed it.',
  media_types: ['image/png', 'image/jpeg', 'image/webp'],
  status: 'available',
  inverse: false,
  async run(media: Media) {
    return judgeGeneratorMetadata(media);
  },
};
