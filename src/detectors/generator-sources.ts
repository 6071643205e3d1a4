// Where generator records live in each container, gathered into one list of named text fields:
// PNG text chunks, EXIF text fields (JPEG APP1, WebP EXIF chunk, PNG eXIf chunk) and the XMP packet. Each field
// carries the `where` the match reports (`png:tEXt:parameters`, `exif:UserComment`, ...).
import { ExifDamage, readExifText, type ExifText } from '../media/exif-text.js';
import { jpegExifBlock } from '../media/exif-tags.js';
import { pngHasAlpha, readPngChunks } from '../media/png-chunks.js';
import { readWebpChunks } from '../media/webp-chunks.js';
import { jpegXmp } from '../media/xmp-hints.js';

/** The PNG text keywords generators use; only these are decoded. */
export const PNG_KEYWORDS = new Set([
  'parameters', // AUTOMATIC1111 and forks, Fooocus, RuinedFooocus, SwarmUI
  'prompt', // ComfyUI API graph (also SwarmUI, Tensor.Art, Stability Matrix)
  'workflow', // ComfyUI UI graph
  'Comment', // NovelAI
  'Software', // NovelAI
  'Source', // NovelAI (the model)
  'Description', // NovelAI (the prompt), Midjourney
  'Author', // Midjourney
  'invokeai_metadata', // InvokeAI 3.x+
  'invokeai_graph', // InvokeAI 3.x+
  'sd-metadata', // InvokeAI 2.x
  'Dream', // InvokeAI 2.x
  'fooocus_scheme', // Fooocus
  'generation_data', // Tensor.Art
  'parameters-json', // Stability Matrix
  'smproj', // Stability Matrix
  'XML:com.adobe.xmp', // XMP
]);

export interface Field {
  /** `Comment`, `parameters` (PNG keywords) or `exif:UserComment`, `exif:Make`... */
  name: string;
  where: string;
  text: string;
}

export interface FileFields {
  fields: Field[];
  xmp?: string;
  /** The pixels have an alpha channel, where a stealth payload could be. */
  alpha: boolean;
  /** The picture's size, when the header was read (PNG). */
  size?: { width: number; height: number };
  /** Damage met while reading, as a clause; `blocking` when it kept the metadata from being read. */
  damage?: { clause: string; blocking: boolean };
  /** The UserComment's character code as read (`unicode-utf16le`...), for tests and diagnostics. */
  userCommentEncoding?: string;
}

const utf8 = new TextDecoder('utf-8');

function exifFields(block: Uint8Array, out: FileFields): void {
  let tags: ExifText;
  try {
    tags = readExifText(block);
  } catch (err) {
    if (!(err instanceof ExifDamage)) throw err;
    out.damage = { clause: `its EXIF block cannot be followed (${err.message})`, blocking: true };
    return;
  }
  const add = (name: string, text: string | undefined) => {
    if (text) out.fields.push({ name: `exif:${name}`, where: `exif:${name}`, text });
  };
  add('UserComment', tags.userComment?.text);
  add('Model', tags.model);
  add('Make', tags.make);
  add('Software', tags.software);
  add('ImageDescription', tags.imageDescription);
  add('MakerNote', tags.makerNote);
  out.userCommentEncoding = tags.userComment?.encoding;
}

function pngFields(bytes: Uint8Array, out: FileFields): void {
  const chunks = readPngChunks(bytes, (k) => PNG_KEYWORDS.has(k));
  if (!chunks) {
    out.damage = { clause: 'it does not start with the PNG signature', blocking: true };
    return;
  }
  out.alpha = pngHasAlpha(chunks.header);
  if (chunks.header) out.size = { width: chunks.header.width, height: chunks.header.height };
  if (chunks.exif) exifFields(chunks.exif, out);
  for (const t of chunks.texts) {
    if (t.keyword === 'XML:com.adobe.xmp') out.xmp = t.text;
    else if (t.text !== undefined) out.fields.push({ name: t.keyword, where: `png:${t.chunk}:${t.keyword}`, text: t.text });
  }
  // Damage before the image data means the records (written before it) may be lost; after it,
  // only records written after the pixels are.
  if (chunks.damage) out.damage = { clause: chunks.damage, blocking: !chunks.sawImageData };
}

function jpegFields(bytes: Uint8Array, out: FileFields): void {
  const exif = jpegExifBlock(bytes);
  if (exif) exifFields(exif, out);
  out.xmp = jpegXmp(bytes);
}

function webpFields(bytes: Uint8Array, out: FileFields): void {
  const chunks = readWebpChunks(bytes);
  if (!chunks) {
    out.damage = { clause: 'it does not start with a RIFF WEBP header', blocking: true };
    return;
  }
  out.alpha = chunks.hasAlpha;
  if (chunks.exif) exifFields(chunks.exif, out);
  if (chunks.xmp) out.xmp = utf8.decode(chunks.xmp.subarray(0, 2 * 1024 * 1024));
  if (chunks.damage) out.damage ??= { clause: chunks.damage, blocking: true };
}

/** The text fields of a PNG, JPEG or WebP file. Never throws on damage: it is reported. */
export function readFileFields(bytes: Uint8Array, type: string): FileFields {
  const out: FileFields = { fields: [], alpha: false };
  if (type === 'image/png') pngFields(bytes, out);
  else if (type === 'image/jpeg') jpegFields(bytes, out);
  else if (type === 'image/webp') webpFields(bytes, out);
  return out;
}

/** The first field called `name`. */
export function field(f: FileFields, name: string): Field | undefined {
  return f.fields.find((x) => x.name === name);
}
