// The card lines of the two checks that read what AI generators leave in a file: the record a
// generator wrote (generator_metadata) and the invisible dwtDct watermark in the pixels
// (invisible_watermark). "generator: ComfyUI · model flux1-dev · seed 91050358797301",
// "invisible watermark: SDXL (47/48 bits)".
import type { GeneratorRecord, Match, WatermarkRecord } from '../types.js';
import { PAYLOAD_NAMES, toolDisplayName, UNNAMED_TOOL } from '../verdict/maker-names.js';
import type { Style } from './style.js';
import { printable, shortened } from './terminal-text.js';

const MODEL_FILE_EXTENSION = /\.(safetensors|ckpt|pt|pth|bin|gguf)$/i;

/** Longest prompt shown on the card (the JSON has up to 500 characters). */
const PROMPT_SHOWN = 120;

export function toolName(record: Pick<GeneratorRecord, 'tool' | 'app'>): string {
  // An app that names a fork or a version says more than the tool's family name.
  return printable(toolDisplayName(record));
}

/** "ComfyUI · model flux1-dev · seed 91050358797301" */
export function generatorSummary(record: GeneratorRecord): string {
  const parts = [toolName(record)];
  // A checkpoint's file name says the model; its extension says only how it was saved.
  if (record.model) parts.push(`model ${printable(shortened(record.model.replace(MODEL_FILE_EXTENSION, ''), 80))}`);
  if (record.seed) parts.push(`seed ${printable(shortened(record.seed, 40))}`);
  return parts.join(' · ');
}

/** "SDXL (47/48 bits)" */
export function watermarkSummary(mark: WatermarkRecord): string {
  return `${PAYLOAD_NAMES[mark.payload]?.name ?? mark.payload} (${mark.bits_matched}/${mark.bits_total} bits)`;
}

export function watermarkMaker(mark: WatermarkRecord): string {
  return PAYLOAD_NAMES[mark.payload]?.who ?? 'an invisible-watermark encoder';
}

/** The lines of a found generator_metadata match, after its label. */
export function generatorLines(match: Match, s: Style): { head: string; rows: string[] } {
  const record = match.generator;
  if (!record) return { head: `${s.green('found')} (confidence ${match.confidence})`, rows: [] };
  const rows = [`read from ${printable(record.where)}`];
  if (record.prompt) rows.push(`prompt "${printable(shortened(record.prompt, PROMPT_SHOWN))}"`);
  if (record.signature === 'valid') rows.push(s.green("signature valid: signed with the generator's published key (pixels and record unchanged)"));
  else if (record.signature === 'invalid') rows.push(s.red("signature invalid: the pixels or the record changed after the generator signed them"));
  if (record.signature !== 'valid') rows.push(s.dim('a record in the file: anyone can write or edit it, so a hint, not proof'));
  // How a hint named its tool (Midjourney from its XMP job id), or why a signature went unchecked.
  if (match.note) rows.push(s.dim(printable(match.note)));
  // `unknown`: the file says AI made it (an IPTC digital source type) but names no generator.
  const head = record.tool === UNNAMED_TOOL ? 'a label that says AI-generated, naming no generator' : `generator: ${s.bold(generatorSummary(record))}`;
  return { head: `${s.green('found')}: ${head}`, rows };
}

/** The lines of a found invisible_watermark match, after its label. */
export function watermarkLines(match: Match, s: Style): { head: string; rows: string[] } {
  const mark = match.watermark;
  if (!mark) return { head: `${s.green('found')} (confidence ${match.confidence})`, rows: [] };
  return {
    head: `${s.green('found')}: invisible watermark: ${s.bold(watermarkSummary(mark))}`,
    rows: [
      `the ${mark.method} mark of ${watermarkMaker(mark)}`,
      // What the check does (docs/DETECTORS.md): a cut-out of a lossless picture is read on the
      // generator's own block grid, so a crop no longer hides the mark; a resize or lossy save does.
      s.dim("in the pixels: read through metadata stripping, lossless crops (on the generator's block grid), halving and most JPEG/WebP saves at quality 90-95; other resizes and lower JPEG qualities mostly erase it"),
    ],
  };
}
