// generator_metadata's own rules (generator-metadata.ts): which field names which tool, which
// record is reported when a file holds several (rank, then strength, then the order found), how a
// NovelAI signature's copies are judged, and the notes. Each file is built field by field in the
// layout its writer uses (test/helpers/generator-fixtures.ts cites them).
import { sign } from 'node:crypto';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { generatorMetadata, judgeGeneratorMetadata } from '../src/detectors/generator-metadata.js';
import { decodePixels } from '../src/media/pixels.js';
import type { DetectorOutcome } from '../src/types.js';
import { concat } from './fixtures/make.js';
import {
  PNG_SIG,
  iTXt,
  jpegWith,
  patternPixels,
  pngChunk,
  pngWithText,
  stealthBytes,
  tEXt,
  tiffBlock,
  userComment,
  webpWith,
  writeAlphaBits,
  xmpPacket,
} from './helpers/generator-fixtures.js';
import { CANONICAL, TEST_KEY, keys, novelAiPng, rgbOf, storedComment } from './helpers/novelai-signed.js';

const TYPES = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' } as const;
const judge = (bytes: Uint8Array, type: keyof typeof TYPES = 'png', key = false): Promise<DetectorOutcome> =>
  judgeGeneratorMetadata({ bytes, type: TYPES[type], sha256: '' }, key ? { novelAiPublicKey: TEST_KEY } : {});

const SOFTWARE = 0x0131;
const DESCRIPTION = 0x010e;
const USER_COMMENT = 0x9286;
const MAKER_NOTE = 0x927c;
const jpegTags = (tags: [number, string][], comment?: string) =>
  jpegWith({
    tiff: tiffBlock({
      ifd0: tags.map(([tag, value]) => (tag === MAKER_NOTE ? { tag, type: 7 as const, value: new TextEncoder().encode(value) } : { tag, type: 2 as const, value })),
      exif: comment === undefined ? undefined : [{ tag: USER_COMMENT, type: 7, value: userComment(comment, 'utf16le') }],
    }),
  });
const JOB = '8b9e5a2c-4f1d-4c3a-9e7b-2d6f1a0c3b5e';
const IPTC = 'http://iptc.org/std/Iptc4xmpExt/2008-02-29/';
const SOURCE_TYPES = 'http://cv.iptc.org/newscodes/digitalsourcetype/';
const A1111 = 'a cat\nSteps: 20, Sampler: Euler, Seed: 5, Size: 512x512, Model: m';
const SWARM = JSON.stringify({ sui_image_params: { prompt: 'a swarm cat', model: 'swarm.safetensors', seed: 9 } });

describe('tools named by a free-text field', () => {
  it.each([
    ['Made with Google AI', 'google_ai', 'Google AI'],
    ['Edited with Google AI', 'google_ai', 'Google AI'],
    ['Adobe Firefly', 'adobe_firefly', 'Adobe Firefly'],
    ['DALL·E 3', 'openai', 'OpenAI'],
    ['DALL-E', 'openai', 'OpenAI'],
    ['DALL-E3', 'openai', 'OpenAI'],
    ['ChatGPT', 'openai', 'OpenAI'],
    ['gpt-image-1', 'openai', 'OpenAI'],
    ['NovelAI', 'novelai', 'NovelAI'],
    ['Fooocus v2.5.5', 'fooocus', 'Fooocus'],
    ['Midjourney', 'midjourney', 'Midjourney'],
    ['midjourney v6', 'midjourney', 'Midjourney'],
  ])('JPEG Software %j: %s', async (software, tool, app) => {
    expect(await judge(jpegTags([[SOFTWARE, software]]), 'jpeg')).toStrictEqual({
      result: 'found',
      confidence: 0.75,
      generator: { tool, app, where: 'exif:Software' },
    });
  });

  it.each(['Not made with Google AI', 'gpt-image-x', 'Dalle', 'Made by NovelAI', 'My Fooocus', 'Not Midjourney', 'GIMP 2.10'])(
    'JPEG Software %j: nobody',
    async (software) => {
      expect(await judge(jpegTags([[SOFTWARE, software]]), 'jpeg')).toStrictEqual({ result: 'not_found', confidence: 0.6 });
    },
  );

  it('a PNG Software chunk names the tool too', async () => {
    expect((await judge(pngWithText(tEXt('Software', 'Adobe Firefly')))).generator).toStrictEqual({ tool: 'adobe_firefly', app: 'Adobe Firefly', where: 'png:tEXt:Software' });
  });

  it("FooocusPlus's Software alone names it; its MakerNote or Fooocus's Software names a Fooocus JSON", async () => {
    expect((await judge(jpegTags([[SOFTWARE, 'FooocusPlus 1.0.0.1, Preset: default']]), 'jpeg')).generator).toStrictEqual({
      tool: 'fooocus',
      app: 'FooocusPlus',
      where: 'exif:Software',
    });
    const json = JSON.stringify({ prompt: 'a fox', base_model: 'juggernautXL_v9.safetensors', seed: 7 });
    const fooocus = { tool: 'fooocus', app: 'Fooocus', where: 'exif:UserComment', model: 'juggernautXL_v9.safetensors', seed: '7', prompt: 'a fox' };
    expect((await judge(jpegTags([[MAKER_NOTE, 'fooocus']], json), 'jpeg')).generator).toStrictEqual(fooocus);
    expect((await judge(jpegTags([[MAKER_NOTE, 'Fooocus']], json), 'jpeg')).generator).toStrictEqual(fooocus);
    for (const note of ['xfooocus', 'fooocusx', 'simple']) expect((await judge(jpegTags([[MAKER_NOTE, note]], json), 'jpeg')).result, note).toBe('not_found');
    expect((await judge(jpegTags([[SOFTWARE, 'Fooocus v2.5.5']], json), 'jpeg')).generator).toStrictEqual(fooocus);
    expect((await judge(jpegTags([[SOFTWARE, 'My Fooocus']], json), 'jpeg')).result).toBe('not_found');
    expect((await judge(jpegTags([], json), 'jpeg')).result).toBe('not_found');
  });
});

describe('records read from other places', () => {
  it('Midjourney from EXIF ImageDescription and from XMP dc:description', async () => {
    const text = `a cat --v 6 Job ID: ${JOB}`;
    expect((await judge(jpegTags([[DESCRIPTION, text]]), 'jpeg')).generator).toStrictEqual({ tool: 'midjourney', app: 'Midjourney', where: 'exif:ImageDescription', prompt: 'a cat --v 6' });
    const xmp = xmpPacket({ dc: 'http://purl.org/dc/elements/1.1/', rdf: 'http://www.w3.org/1999/02/22-rdf-syntax-ns#' }, '', `<dc:description><rdf:Alt><rdf:li xml:lang="x-default">${text}</rdf:li></rdf:Alt></dc:description>`);
    expect((await judge(jpegWith({ xmp }), 'jpeg')).generator).toStrictEqual({ tool: 'midjourney', app: 'Midjourney', where: 'xmp:dc:description', prompt: 'a cat --v 6' });
  });

  it('a source type that only starts like the AI ones is none', async () => {
    const xmp = xmpPacket({ Iptc4xmpExt: IPTC }, `Iptc4xmpExt:DigitalSourceType="${SOURCE_TYPES}trainedAlgorithmicMediaX"`);
    expect((await judge(jpegWith({ xmp }), 'jpeg')).result).toBe('not_found');
    const composite = xmpPacket({ Iptc4xmpExt: IPTC }, `Iptc4xmpExt:DigitalSourceType="${SOURCE_TYPES}compositeWithTrainedAlgorithmicMedia"`);
    expect((await judge(jpegWith({ xmp: composite }), 'jpeg')).generator).toStrictEqual({ tool: 'unknown', where: 'xmp:Iptc4xmpExt:DigitalSourceType' });
  });

  it("NovelAI's EXIF form: the prompt from ImageDescription when the Comment has none", async () => {
    const comment = JSON.stringify({ steps: 28, seed: 11, noise_schedule: 'karras' });
    expect((await judge(jpegTags([[DESCRIPTION, 'a cat'], [SOFTWARE, 'NovelAI Diffusion V4.5 4BDE2A90']], comment), 'jpeg')).generator).toStrictEqual({
      tool: 'novelai',
      app: 'NovelAI',
      where: 'exif:UserComment',
      model: 'NovelAI Diffusion V4.5 4BDE2A90',
      seed: '11',
      prompt: 'a cat',
    });
  });

  it("NovelAI's PNG chunks without a Comment: named by Software, the prompt from Description", async () => {
    expect(await judge(pngWithText(tEXt('Software', 'NovelAI'), tEXt('Description', 'a cat')))).toStrictEqual({
      result: 'found',
      confidence: 0.75,
      generator: { tool: 'novelai', app: 'NovelAI', where: 'png:tEXt:Software', prompt: 'a cat' },
    });
  });

  it('Stability Matrix and InvokeAI named by a chunk whose content is not read', async () => {
    expect((await judge(pngWithText(tEXt('smproj', '{}')))).generator).toStrictEqual({ tool: 'stability_matrix', app: 'Stability Matrix', where: 'png:tEXt:smproj' });
    expect((await judge(pngWithText(tEXt('invokeai_graph', '{}')))).generator).toStrictEqual({ tool: 'invokeai', app: 'InvokeAI', where: 'png:tEXt:invokeai_graph' });
    expect((await judge(pngWithText(tEXt('invokeai_metadata', 'not json')))).generator).toStrictEqual({ tool: 'invokeai', app: 'InvokeAI', where: 'png:tEXt:invokeai_metadata' });
  });

  it('a `parameters` JSON is Fooocus only beside fooocus_scheme (or with its version); an A1111-style ComfyUI text stays ComfyUI beside it', async () => {
    const json = JSON.stringify({ prompt: 'a fox', base_model: 'm.safetensors', seed: 7 });
    expect((await judge(pngWithText(tEXt('parameters', json)))).result).toBe('not_found');
    expect((await judge(pngWithText(tEXt('parameters', json), tEXt('fooocus_scheme', 'fooocus')))).generator?.tool).toBe('fooocus');
    const comfyText = A1111.replace('Model: m', 'Model: m, Version: ComfyUI');
    expect((await judge(pngWithText(tEXt('parameters', comfyText), tEXt('fooocus_scheme', 'a1111')))).generator).toMatchObject({ tool: 'comfyui', app: 'ComfyUI' });
  });

  it('a stealth A1111 text in the alpha channel of a WebP', async () => {
    const pixels = patternPixels(64, 64, 4);
    writeAlphaBits(pixels, stealthBytes('stealth_pnginfo', new TextEncoder().encode(A1111)));
    const image = await sharp(Buffer.from(pixels.data), { raw: { width: 64, height: 64, channels: 4 } }).webp({ lossless: true, exact: true }).toBuffer();
    expect((await judge(webpWith(new Uint8Array(image), 64, 64, { alpha: true }), 'webp')).generator).toStrictEqual({
      tool: 'automatic1111',
      app: 'AUTOMATIC1111',
      where: 'alpha-lsb:stealth_pnginfo',
      model: 'm',
      seed: '5',
      prompt: 'a cat',
    });
  });
});

describe('which record is reported', () => {
  it('a more specific tool found later wins over a generic one found first', async () => {
    const out = await judge(pngWithText(tEXt('parameters', A1111), tEXt('Software', 'NovelAI')));
    expect(out.generator).toMatchObject({ tool: 'novelai', where: 'png:tEXt:Software' });
  });

  it('within a rank, a full record wins over one that only names its tool', async () => {
    const tensor = JSON.stringify({ prompt: 'a cat', seed: 3, baseModel: { modelFileName: 't.safetensors' } });
    expect((await judge(pngWithText(tEXt('smproj', '{}'), tEXt('generation_data', tensor)))).generator).toStrictEqual({
      tool: 'tensorart',
      app: 'Tensor.Art',
      where: 'png:tEXt:generation_data',
      model: 't.safetensors',
      seed: '3',
      prompt: 'a cat',
    });
  });

  it('a NovelAI signature that does not verify marks NovelAI, not the SwarmUI record found first', async () => {
    const out = await judge(novelAiPng({ text: true, channels: 3, before: [tEXt('parameters', SWARM)] }));
    expect(out).toStrictEqual({
      result: 'found',
      confidence: 0.85,
      generator: { tool: 'swarmui', app: 'SwarmUI', where: 'png:tEXt:parameters', model: 'swarm.safetensors', seed: '9', prompt: 'a swarm cat' },
    });
  });

  it('a valid NovelAI signature wins over the SwarmUI record found first', async () => {
    const out = await judge(novelAiPng({ text: true, channels: 3, before: [tEXt('parameters', SWARM)] }), 'png', true);
    expect(out).toMatchObject({ confidence: 0.99, generator: { tool: 'novelai', signature: 'valid' } });
  });

  it('a file-level copy that does not verify and an alpha copy that does: valid', async () => {
    const before = [tEXt('Software', 'NovelAI'), tEXt('Comment', storedComment(Buffer.alloc(64).toString('base64')))];
    const out = await judge(novelAiPng({ alpha: true, before }), 'png', true);
    expect(out).toMatchObject({ confidence: 0.99, generator: { tool: 'novelai', where: 'png:tEXt:Comment', signature: 'valid' } });
  });
});

describe('a signed Comment in a JPEG', () => {
  it('is invalid even when the decoded pixels carry a signature that verifies: NovelAI signs PNG and WebP pixels', async () => {
    const image = new Uint8Array(await sharp({ create: { width: 16, height: 16, channels: 3, background: '#336699' } }).jpeg().toBuffer());
    const unsigned = (comment: string) => {
      const tiff = tiffBlock({ ifd0: [{ tag: SOFTWARE, type: 2, value: 'NovelAI' }], exif: [{ tag: USER_COMMENT, type: 7, value: userComment(comment, 'ascii') }] });
      const payload = concat(new TextEncoder().encode('Exif\0\0'), tiff);
      const app1 = concat(new Uint8Array([0xff, 0xe1, ((payload.length + 2) >> 8) & 0xff, (payload.length + 2) & 0xff]), payload);
      return concat(image.subarray(0, 2), app1, image.subarray(2));
    };
    const pixels = await decodePixels(unsigned('x').slice());
    const signature = sign(null, concat(rgbOf(pixels), Buffer.from(CANONICAL, 'utf8')), keys.privateKey).toString('base64');
    const out = await judge(unsigned(storedComment(signature)), 'jpeg', true);
    expect(out).toMatchObject({ confidence: 0.7, generator: { tool: 'novelai', where: 'exif:UserComment', signature: 'invalid' } });
  });
});

describe('notes', () => {
  it('a signed NovelAI record whose pixels cannot be decoded: the record, and why its signature was not checked', async () => {
    const ihdr = new Uint8Array([0, 0, 0x0f, 0xa0, 0, 0, 0x0f, 0xa0, 8, 2, 0, 0, 0]); // 4000 x 4000 RGB
    const png = concat(PNG_SIG, pngChunk('IHDR', ihdr), tEXt('Software', 'NovelAI'), tEXt('Comment', storedComment('AAAA')), pngChunk('IDAT', new Uint8Array(8)), pngChunk('IEND', new Uint8Array(0)));
    const out = await judge(png, 'png', true);
    expect(out).toStrictEqual({
      result: 'found',
      confidence: 0.85,
      generator: { tool: 'novelai', app: 'NovelAI', where: 'png:tEXt:Comment', seed: '3735928559', prompt: ' a café at dusk' },
      note: 'The NovelAI signature could not be checked: the picture has more than 9,437,184 pixels.',
    });
  });

  it('not_found carries no note when there is nothing to say', async () => {
    expect(await judge(pngWithText(tEXt('Title', 'x')))).toStrictEqual({ result: 'not_found', confidence: 0.6 });
  });

  it('the Midjourney hint carries its note', async () => {
    const xmp = xmpPacket({ Iptc4xmpExt: IPTC }, `Iptc4xmpExt:DigitalSourceType="${SOURCE_TYPES}trainedAlgorithmicMedia" Iptc4xmpExt:DigImageGUID="${JOB}"`);
    const out = await judge(pngWithText(iTXt('XML:com.adobe.xmp', xmp)));
    expect(out.note).toMatch(new RegExp(`^Named Midjourney from XMP Iptc4xmpExt:DigImageGUID ${JOB} `));
  });
});

describe('the detector', () => {
  it('is described as the catalogue lists it, and runs the judge', async () => {
    expect(generatorMetadata).toMatchObject({
      id: 'generator_metadata',
      name: 'Generator metadata',
      media_types: ['image/png', 'image/jpeg', 'image/webp'],
      status: 'available',
      inverse: false,
    });
    expect(generatorMetadata.description).toMatch(/^Reads the records that image generators write into the file: .*unless the generator signed it\.$/);
    expect(await generatorMetadata.run({ bytes: pngWithText(tEXt('parameters', A1111)), type: 'image/png', sha256: '' })).toMatchObject({ result: 'found', generator: { tool: 'automatic1111' } });
  });
});
