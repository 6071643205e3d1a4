// generator_metadata on files built here: each tool's record in each container it writes, the
// choice between several records, NovelAI's Ed25519 signature (signed here with a test key pair,
// injected into the verifier), and hostile files, each answered correctly and quickly.
import { sign, type KeyObject } from 'node:crypto';
import sharp from 'sharp';
import { describe, expect, it } from 'vitest';
import { generatorMetadata, judgeGeneratorMetadata } from '../src/detectors/generator-metadata.js';
import { NOVELAI_PUBLIC_KEY_BASE64, ed25519PublicKey } from '../src/detectors/novelai-signature.js';
import { parsePythonJson, pythonFloatRepr, pythonJsonDumps, PythonJsonError } from '../src/detectors/python-json.js';
import { readPngChunks } from '../src/media/png-chunks.js';
import { decodeUserComment } from '../src/media/user-comment.js';
import type { DetectorOutcome } from '../src/types.js';
import { concat } from './fixtures/make.js';
import {
  iTXt,
  jpegWith,
  makePng,
  patternPixels,
  pngChunk,
  pngWithText,
  stealthBytes,
  tEXt,
  tEXtBytes,
  tiffBlock,
  userComment,
  webpWith,
  writeAlphaBits,
  xmpPacket,
  zTXt,
} from './helpers/generator-fixtures.js';
import { CANONICAL, TEST_KEY, keys, novelAiPng, rgbOf, storedComment } from './helpers/novelai-signed.js';

const TYPES = { png: 'image/png', jpeg: 'image/jpeg', webp: 'image/webp' } as const;

async function judge(bytes: Uint8Array, type: keyof typeof TYPES = 'png', key?: KeyObject): Promise<DetectorOutcome> {
  return judgeGeneratorMetadata({ bytes, type: TYPES[type], sha256: '' }, key ? { novelAiPublicKey: key } : {});
}

async function timed<T>(f: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const t0 = performance.now();
  const value = await f();
  return { value, ms: performance.now() - t0 };
}

const A1111 =
  'a red fox in the snow, (masterpiece:1.2)\nNegative prompt: blurry, lowres\nSteps: 30, Sampler: DPM++ 2M Karras, CFG scale: 7, Seed: 3141592653, Size: 512x768, Model hash: c0d1994c73, Model: dreamshaper_8, Lora hashes: "fox: 1a2b3c, snow: 4d5e6f", Version: v1.10.1';

describe('AUTOMATIC1111 and its forks', () => {
  it('reads a PNG tEXt `parameters` record: prompt, seed, model', async () => {
    const out = await judge(pngWithText(tEXt('parameters', A1111)));
    expect(out).toMatchObject({ result: 'found', confidence: 0.85 });
    expect(out.generator).toEqual({
      tool: 'automatic1111',
      app: 'AUTOMATIC1111',
      where: 'png:tEXt:parameters',
      model: 'dreamshaper_8',
      seed: '3141592653',
      prompt: 'a red fox in the snow, (masterpiece:1.2)',
    });
  });

  it('names the fork the text names (Forge, Forge Neo, SD.Next), from a compressed iTXt too', async () => {
    const forge = A1111.replace('Version: v1.10.1', 'Version: f2.0.1v1.10.1-previous-313-g8a042934');
    expect((await judge(pngWithText(iTXt('parameters', forge, true)))).generator).toMatchObject({
      tool: 'automatic1111',
      app: 'Stable Diffusion WebUI Forge',
      where: 'png:iTXt:parameters',
    });
    const neo = A1111.replace('Version: v1.10.1', 'Version: neo');
    expect((await judge(pngWithText(zTXt('parameters', neo)))).generator).toMatchObject({ app: 'Forge Neo', where: 'png:zTXt:parameters' });
    const next = A1111.replace('Version: v1.10.1', 'App: SD.Next, Version: 2f3b8a1');
    expect((await judge(pngWithText(tEXt('parameters', next)))).generator).toMatchObject({ app: 'SD.Next' });
  });

  it('reads EXIF UserComment in UTF-16 big-endian (piexif) from a JPEG, whatever the TIFF byte order', async () => {
    for (const bigEndian of [true, false]) {
      const tiff = tiffBlock({ ifd0: [], exif: [{ tag: 0x9286, type: 7, value: userComment(A1111, 'utf16be') }], bigEndian });
      const out = await judge(jpegWith({ tiff }), 'jpeg');
      expect(out.generator).toMatchObject({ tool: 'automatic1111', where: 'exif:UserComment', seed: '3141592653', model: 'dreamshaper_8' });
    }
  });

  it("reads an A1111 UserComment from a PNG's eXIf chunk", async () => {
    const tiff = tiffBlock({ ifd0: [], exif: [{ tag: 0x9286, type: 7, value: userComment(A1111, 'utf16be') }], bigEndian: true });
    expect((await judge(pngWithText(pngChunk('eXIf', tiff)))).generator).toMatchObject({ tool: 'automatic1111', where: 'exif:UserComment', seed: '3141592653' });
  });

  it('reads a UTF-8 prompt in a tEXt chunk, and a Unicode prompt in iTXt', async () => {
    const text = A1111.replace('a red fox', 'un renard roux, 雪の中');
    const utf8InText = await judge(pngWithText(tEXtBytes('parameters', new TextEncoder().encode(text))));
    expect(utf8InText.generator?.prompt).toBe('un renard roux, 雪の中 in the snow, (masterpiece:1.2)');
    expect((await judge(pngWithText(iTXt('parameters', text)))).generator?.prompt).toContain('雪の中');
  });

  it('does not take a `parameters` text without a settings line for a record', async () => {
    expect((await judge(pngWithText(tEXt('parameters', 'just a caption')))).result).toBe('not_found');
  });

  it('cuts the prompt to 500 characters', async () => {
    const long = `${'x'.repeat(600)}\nSteps: 20, Sampler: Euler, Seed: 1, Model: m`;
    expect((await judge(pngWithText(tEXt('parameters', long)))).generator?.prompt).toHaveLength(500);
  });
});

const COMFY_PROMPT = JSON.stringify({
  '3': { class_type: 'KSampler', inputs: { seed: 1, steps: 20, model: ['10', 0], positive: ['6', 0], negative: ['7', 0] } },
  '4': { class_type: 'CheckpointLoaderSimple', inputs: { ckpt_name: 'sd_xl_base_1.0.safetensors' } },
  '6': { class_type: 'CLIPTextEncode', inputs: { text: 'a lighthouse at dawn', clip: ['10', 1] } },
  '7': { class_type: 'CLIPTextEncode', inputs: { text: 'blurry', clip: ['10', 1] } },
  '10': { class_type: 'LoraLoader', inputs: { lora_name: 'x.safetensors', model: ['4', 0], clip: ['4', 1] } },
}).replace('"seed":1,', '"seed":18446744073709551615,'); // a 64-bit seed, past 2^53

describe('ComfyUI', () => {
  it('reads the `prompt` graph: the sampler seed exactly (past 2^53), the checkpoint through a LoRA loader, the positive text', async () => {
    const out = await judge(pngWithText(tEXt('prompt', COMFY_PROMPT), tEXt('workflow', '{"nodes": []}')));
    expect(out).toMatchObject({ result: 'found', confidence: 0.85 });
    expect(out.generator).toEqual({
      tool: 'comfyui',
      app: 'ComfyUI',
      where: 'png:tEXt:prompt',
      model: 'sd_xl_base_1.0.safetensors',
      seed: '18446744073709551615',
      prompt: 'a lighthouse at dawn',
    });
  });

  it('reads text chunks written after the image data', async () => {
    const png = makePng(patternPixels(4, 4, 3), { after: [tEXt('prompt', COMFY_PROMPT)] });
    expect((await judge(png)).generator).toMatchObject({ tool: 'comfyui', where: 'png:tEXt:prompt' });
  });

  it('follows a seed link to a primitive node, and reads a workflow-only file', async () => {
    const graph = JSON.parse(COMFY_PROMPT);
    graph['3'].inputs.seed = ['20', 0];
    graph['20'] = { class_type: 'PrimitiveInt', inputs: { value: 42 } };
    expect((await judge(pngWithText(tEXt('prompt', JSON.stringify(graph))))).generator?.seed).toBe('42');
    expect((await judge(pngWithText(tEXt('workflow', '{"last_node_id": 1, "nodes": [{"id": 1}]}')))).generator).toEqual({
      tool: 'comfyui',
      app: 'ComfyUI',
      where: 'png:tEXt:workflow',
    });
  });

  it('reads a WebP whose EXIF Model holds "prompt:{...}" and Make "workflow:{...}"', async () => {
    const image = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#336699' } }).webp({ lossless: true }).toBuffer();
    const tiff = tiffBlock({
      ifd0: [
        { tag: 0x010f, type: 2, value: 'workflow:{"nodes": []}' },
        { tag: 0x0110, type: 2, value: `prompt:${COMFY_PROMPT}` },
      ],
    });
    const out = await judge(webpWith(new Uint8Array(image), 8, 8, { tiff }), 'webp');
    expect(out.generator).toMatchObject({ tool: 'comfyui', where: 'exif:Model', seed: '18446744073709551615' });
  });
});

describe('InvokeAI, SwarmUI, Fooocus and the other JSON writers', () => {
  it('InvokeAI 3.x invokeai_metadata, 2.x sd-metadata and Dream', async () => {
    const v3 = '{"generation_mode":"txt2img","positive_prompt":"an owl","seed":77,"model":{"model_name":"juggernautXL","base_model":"sdxl"}}';
    expect((await judge(pngWithText(tEXt('invokeai_metadata', v3)))).generator).toEqual({
      tool: 'invokeai',
      app: 'InvokeAI',
      where: 'png:tEXt:invokeai_metadata',
      model: 'juggernautXL',
      seed: '77',
      prompt: 'an owl',
    });
    const v2 = '{"model":"stable diffusion","model_weights":"stable-diffusion-1.5","app_id":"invoke-ai/InvokeAI","image":{"prompt":[{"prompt":"a cat","weight":1}],"seed":12}}';
    expect((await judge(pngWithText(tEXt('sd-metadata', v2)))).generator).toMatchObject({ where: 'png:tEXt:sd-metadata', model: 'stable-diffusion-1.5', seed: '12', prompt: 'a cat' });
    const dream = '"a castle on a hill" -s 50 -S 2980747362 -W 512 -H 768 -C 7.5 -A k_lms';
    expect((await judge(pngWithText(tEXt('Dream', dream)))).generator).toEqual({
      tool: 'invokeai',
      app: 'InvokeAI',
      where: 'png:tEXt:Dream',
      seed: '2980747362',
      prompt: 'a castle on a hill',
    });
  });

  const swarm = JSON.stringify(
    { sui_image_params: { prompt: 'a tiger, 虎', model: 'waiIllustriousSDXL_v160', seed: 697543491, steps: 20, swarm_version: '0.9.7.4' } },
    null,
    2,
  );

  it('SwarmUI in PNG parameters, and in a JPEG UserComment as UTF-16LE inside a big-endian TIFF', async () => {
    expect((await judge(pngWithText(iTXt('parameters', swarm), tEXt('prompt', COMFY_PROMPT)))).generator).toEqual({
      tool: 'swarmui',
      app: 'SwarmUI',
      where: 'png:iTXt:parameters',
      model: 'waiIllustriousSDXL_v160',
      seed: '697543491',
      prompt: 'a tiger, 虎',
    });
    const tiff = tiffBlock({ ifd0: [], exif: [{ tag: 0x9286, type: 7, value: userComment(swarm, 'utf16le') }], bigEndian: true });
    expect((await judge(jpegWith({ tiff }), 'jpeg')).generator).toMatchObject({ tool: 'swarmui', where: 'exif:UserComment', prompt: 'a tiger, 虎' });
  });

  it('Fooocus: PNG parameters JSON beside fooocus_scheme; JPEG UserComment, MakerNote and Software in IFD0', async () => {
    const fooocus = '{"prompt": "sky above the clouds", "base_model": "juggernautXL_v8Rundiffusion", "seed": "1234567", "version": "Fooocus v2.5.5"}';
    expect((await judge(pngWithText(tEXt('parameters', fooocus), tEXt('fooocus_scheme', 'fooocus')))).generator).toEqual({
      tool: 'fooocus',
      app: 'Fooocus',
      where: 'png:tEXt:parameters',
      model: 'juggernautXL_v8Rundiffusion',
      seed: '1234567',
      prompt: 'sky above the clouds',
    });
    const tiff = tiffBlock({
      bigEndian: true,
      ifd0: [
        { tag: 0x0131, type: 2, value: 'Fooocus v2.5.5' },
        { tag: 0x9286, type: 2, value: fooocus },
        { tag: 0x927c, type: 2, value: 'fooocus' },
      ],
    });
    expect((await judge(jpegWith({ tiff }), 'jpeg')).generator).toMatchObject({ tool: 'fooocus', where: 'exif:UserComment', seed: '1234567' });
  });

  it("Fooocus's a1111 scheme: an A1111-style text that another field says Fooocus wrote", async () => {
    const png = pngWithText(tEXt('parameters', A1111), tEXt('fooocus_scheme', 'a1111'));
    expect((await judge(png)).generator).toMatchObject({ tool: 'fooocus', app: 'Fooocus', where: 'png:tEXt:parameters', seed: '3141592653' });
    const tiff = tiffBlock({
      ifd0: [
        { tag: 0x0131, type: 2, value: 'Fooocus v2.5.5' },
        { tag: 0x9286, type: 2, value: A1111 },
        { tag: 0x927c, type: 2, value: 'a1111' },
      ],
    });
    expect((await judge(jpegWith({ tiff }), 'jpeg')).generator).toMatchObject({ tool: 'fooocus', where: 'exif:UserComment' });
    const other = tiffBlock({ ifd0: [{ tag: 0x0131, type: 2, value: 'Dalle Molle photo studio' }] });
    expect((await judge(jpegWith({ tiff: other }), 'jpeg')).result).toBe('not_found');
  });

  it('RuinedFooocus, Stability Matrix, Tensor.Art (with the NULs it leaves at the end)', async () => {
    const ruined = '{"Prompt": "a fox", "base_model_name": "sdxl.safetensors", "seed": 5, "software": "RuinedFooocus"}';
    expect((await judge(pngWithText(tEXt('parameters', ruined)))).generator).toMatchObject({ tool: 'ruinedfooocus', model: 'sdxl.safetensors', seed: '5' });
    const sm = '{"PositivePrompt": "a boat", "ModelName": "dreamshaper", "Seed": 9}';
    expect((await judge(pngWithText(tEXt('parameters', A1111), tEXt('parameters-json', sm), tEXt('smproj', '{}')))).generator).toMatchObject({
      tool: 'stability_matrix',
      where: 'png:tEXt:parameters-json',
      model: 'dreamshaper',
    });
    const ta = '{"prompt": "a bee", "seed": "-1", "baseModel": {"modelFileName": "ta_model.safetensors"}}\0\0\0';
    expect((await judge(pngWithText(tEXt('generation_data', ta), tEXt('prompt', COMFY_PROMPT)))).generator).toEqual({
      tool: 'tensorart',
      app: 'Tensor.Art',
      where: 'png:tEXt:generation_data',
      model: 'ta_model.safetensors',
      seed: '-1',
      prompt: 'a bee',
    });
  });
});

describe('Midjourney, Google AI, Firefly and plain IPTC source types', () => {
  it('Midjourney: Description with its Job ID', async () => {
    const desc = 'a valley at dawn --ar 16:9 --v 6.1 Job ID: 0f1e2d3c-4b5a-4968-8776-a5b4c3d2e1f0';
    expect((await judge(pngWithText(tEXt('Author', 'someone'), tEXt('Description', desc)))).generator).toEqual({
      tool: 'midjourney',
      app: 'Midjourney',
      where: 'png:tEXt:Description',
      prompt: 'a valley at dawn --ar 16:9 --v 6.1',
    });
  });

  const ns = {
    photoshop: 'http://ns.adobe.com/photoshop/1.0/',
    Iptc4xmpExt: 'http://iptc.org/std/Iptc4xmpExt/2008-02-29/',
    xmp: 'http://ns.adobe.com/xap/1.0/',
  };
  const ai = 'Iptc4xmpExt:DigitalSourceType="http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia"';

  it('Google AI: XMP photoshop:Credit, preferred to the bare source type', async () => {
    const xmp = xmpPacket(ns, ai, '<photoshop:Credit>Made with Google AI</photoshop:Credit>');
    const out = await judge(jpegWith({ xmp }), 'jpeg');
    expect(out).toMatchObject({ result: 'found', confidence: 0.75, generator: { tool: 'google_ai', where: 'xmp:photoshop:Credit' } });
  });

  it('Adobe Firefly named by xmp:CreatorTool; a bare trainedAlgorithmicMedia is tool `unknown`', async () => {
    const firefly = xmpPacket(ns, 'xmp:CreatorTool="Adobe Firefly"');
    expect((await judge(jpegWith({ xmp: firefly }), 'jpeg')).generator).toMatchObject({ tool: 'adobe_firefly', where: 'xmp:xmp:CreatorTool' });
    const bare = await judge(pngWithText(iTXt('XML:com.adobe.xmp', xmpPacket(ns, ai))));
    expect(bare).toEqual({ result: 'found', confidence: 0.6, generator: { tool: 'unknown', where: 'xmp:Iptc4xmpExt:DigitalSourceType' } });
    const digital = xmpPacket(ns, 'Iptc4xmpExt:DigitalSourceType="http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture"');
    expect((await judge(jpegWith({ xmp: digital }), 'jpeg')).result).toBe('not_found');
  });
});

// ---------------------------------------------------------------------------------------------
// NovelAI

describe('NovelAI and its Ed25519 signature', () => {
  it('verifies the file-level and the alpha copy with the injected key: 0.99', async () => {
    const out = await judge(novelAiPng({ text: true, alpha: true }), 'png', TEST_KEY);
    expect(out).toEqual({
      result: 'found',
      confidence: 0.99,
      generator: {
        tool: 'novelai',
        app: 'NovelAI',
        where: 'png:tEXt:Comment',
        model: 'NovelAI Diffusion V4.5 4BDE2A90',
        seed: '3735928559',
        prompt: ' a café at dusk',
        signature: 'valid',
      },
    });
  });

  it('says invalid under NovelAI\'s published key, which did not sign it', async () => {
    const out = await judge(novelAiPng({ text: true, alpha: true }));
    expect(out).toMatchObject({ result: 'found', confidence: 0.7, generator: { tool: 'novelai', signature: 'invalid' } });
    expect(ed25519PublicKey(NOVELAI_PUBLIC_KEY_BASE64).asymmetricKeyType).toBe('ed25519');
  });

  it('says invalid when one pixel changed after signing', async () => {
    const out = await judge(novelAiPng({ text: true, alpha: true, tamper: true }), 'png', TEST_KEY);
    expect(out.generator).toMatchObject({ where: 'png:tEXt:Comment', signature: 'invalid' });
  });

  it('reads and verifies the alpha copy alone', async () => {
    const out = await judge(novelAiPng({ alpha: true }), 'png', TEST_KEY);
    expect(out).toMatchObject({ confidence: 0.99, generator: { where: 'alpha-lsb:stealth_pngcomp', signature: 'valid', seed: '3735928559' } });
  });

  it('verifies the file-level copy of an RGB PNG (no alpha)', async () => {
    const out = await judge(novelAiPng({ text: true, channels: 3 }), 'png', TEST_KEY);
    expect(out.generator).toMatchObject({ where: 'png:tEXt:Comment', signature: 'valid' });
  });

  it('has no signature when the comment has no signed_hash', async () => {
    const out = await judge(novelAiPng({ text: true, alpha: true, signed: false }), 'png', TEST_KEY);
    expect(out).toMatchObject({ confidence: 0.85, generator: { tool: 'novelai', where: 'png:tEXt:Comment' } });
    expect(out.generator).not.toHaveProperty('signature');
  });

  it('a JPEG carrying a signed comment is invalid (NovelAI signs PNG and WebP pixels), without decoding', async () => {
    const tiff = tiffBlock({ ifd0: [{ tag: 0x0131, type: 2, value: 'NovelAI Diffusion V4.5 4BDE2A90' }], exif: [{ tag: 0x9286, type: 7, value: userComment(storedComment('AAAA'), 'ascii') }] });
    const out = await judge(jpegWith({ tiff }), 'jpeg', TEST_KEY);
    expect(out.generator).toMatchObject({ tool: 'novelai', where: 'exif:UserComment', signature: 'invalid' });
  });

  it('a signed NovelAI record wins over a plain IPTC source type', async () => {
    const xmp = xmpPacket({ Iptc4xmpExt: 'http://iptc.org/std/Iptc4xmpExt/2008-02-29/' }, 'Iptc4xmpExt:DigitalSourceType="http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia"');
    const png = novelAiPng({ text: true, alpha: true });
    const withXmp = concat(png.subarray(0, 33), iTXt('XML:com.adobe.xmp', xmp), png.subarray(33));
    expect((await judge(withXmp, 'png', TEST_KEY)).generator).toMatchObject({ tool: 'novelai', signature: 'valid' });
  });

  it('verifies a NovelAI WebP: alpha copy in lossless pixels, Comment in EXIF UserComment (ASCII)', async () => {
    const pixels = patternPixels(96, 96, 4);
    const signature = sign(null, concat(rgbOf(pixels), Buffer.from(CANONICAL, 'utf8')), keys.privateKey).toString('base64');
    const comment = storedComment(signature).replace('café', 'caf\\u00e9'); // the ASCII field holds the escape
    writeAlphaBits(pixels, stealthBytes('stealth_pngcomp', new TextEncoder().encode(JSON.stringify({ Software: 'NovelAI', Comment: comment }))));
    const image = await sharp(Buffer.from(pixels.data), { raw: { width: 96, height: 96, channels: 4 } }).webp({ lossless: true, exact: true }).toBuffer();
    const tiff = tiffBlock({ ifd0: [{ tag: 0x0131, type: 2, value: 'NovelAI Diffusion V4.5 4BDE2A90' }], exif: [{ tag: 0x9286, type: 7, value: userComment(comment, 'ascii') }] });
    const out = await judge(webpWith(new Uint8Array(image), 96, 96, { tiff, alpha: true }), 'webp', TEST_KEY);
    expect(out.generator).toMatchObject({ tool: 'novelai', where: 'exif:UserComment', signature: 'valid' });
  });
});

describe("Python's json.dumps, as the signature needs it", () => {
  it('writes floats as repr() does', () => {
    const cases: [number, string][] = [
      [5, '5.0'],
      [0.38, '0.38'],
      [1e-5, '1e-05'],
      [0.0001, '0.0001'],
      [1e16, '1e+16'],
      [1234567890123456, '1234567890123456.0'],
      [1.5e300, '1.5e+300'],
      [-0, '-0.0'],
      [123456789012345678, '1.2345678901234568e+17'],
      [0.1 + 0.2, '0.30000000000000004'],
    ];
    for (const [x, py] of cases) expect(pythonFloatRepr(x)).toBe(py);
  });

  it('re-serialises with ensure_ascii, separators, exact integers and repeated keys merged', () => {
    const v = parsePythonJson('{"a":"é\\n\\u0007\\ud83d\\ude00/","b":[1,2.50,-0,1E3,true,null,NaN],"a":"again","c":99999999999999999999}');
    expect(pythonJsonDumps(v)).toBe('{"a": "again", "b": [1, 2.5, 0, 1000.0, true, null, NaN], "c": 99999999999999999999}');
    expect(pythonJsonDumps(parsePythonJson('"é\\u0007😀\\u007f"'))).toBe('"\\u00e9\\u0007\\ud83d\\ude00\\u007f"');
  });

  it('refuses nesting past its depth cap instead of overflowing the stack', () => {
    expect(() => parsePythonJson('['.repeat(100_000) + ']'.repeat(100_000))).toThrow(PythonJsonError);
  });
});

describe('EXIF UserComment encodings', () => {
  it('tells UTF-16 byte order by the zero bytes, then the BOM, then the TIFF order', () => {
    expect(decodeUserComment(userComment('Steps: 20', 'utf16le'), true)).toEqual({ text: 'Steps: 20', encoding: 'unicode-utf16le' });
    expect(decodeUserComment(userComment('Steps: 20', 'utf16be'), false)).toEqual({ text: 'Steps: 20', encoding: 'unicode-utf16be' });
    // Text with no zero bytes at all (CJK): the TIFF order decides.
    expect(decodeUserComment(userComment('雪の中', 'utf16be'), true)?.text).toBe('雪の中');
    expect(decodeUserComment(userComment('雪の中', 'utf16le'), false)?.text).toBe('雪の中');
    expect(decodeUserComment(concat(Buffer.from('ASCII\0\0\0'), Buffer.from('hello\0\0  ')), false)).toEqual({ text: 'hello', encoding: 'ascii' });
    expect(decodeUserComment(Buffer.from('no prefix at all'), false)).toEqual({ text: 'no prefix at all', encoding: 'none' });
    expect(decodeUserComment(new Uint8Array(8), false)).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------------------------
// Hostile and damaged files

describe('hostile and damaged files: a bounded, correct answer', () => {
  it('a PNG with 100,000 text chunks before its record', async () => {
    const junk = tEXt('junk', 'x');
    const many = Buffer.concat(Array.from({ length: 100_000 }, () => junk));
    const png = pngWithText(many, tEXt('parameters', A1111));
    const { value, ms } = await timed(() => judge(png));
    expect(value.generator).toMatchObject({ tool: 'automatic1111', seed: '3141592653' });
    expect(ms).toBeLessThan(1000);
  });

  it('100,000 `parameters` chunks: the first one is read, once', async () => {
    const garbage = tEXt('parameters', 'garbage');
    const png = pngWithText(tEXt('parameters', A1111), Buffer.concat(Array.from({ length: 100_000 }, () => garbage)));
    const { value, ms } = await timed(() => judge(png));
    expect(value.generator?.seed).toBe('3141592653');
    expect(ms).toBeLessThan(1000);
  });

  it('a 50 MB zTXt bomb inflates only to the cap and counts as unreadable', async () => {
    const bomb = zTXt('parameters', new Uint8Array(50 * 1024 * 1024).fill(0x61));
    expect(bomb.length).toBeLessThan(100_000);
    const png = pngWithText(bomb);
    const chunks = readPngChunks(png, () => true)!;
    expect(chunks.texts[0]).toMatchObject({ keyword: 'parameters' });
    expect(chunks.texts[0]!.text).toBeUndefined();
    expect(chunks.texts[0]!.problem).toMatch(/inflates past/);
    const { value, ms } = await timed(() => judge(png));
    expect(value.result).toBe('not_found');
    expect(ms).toBeLessThan(1000);
  });

  it('an alpha payload that claims 4 GB is no payload; the text record is still read', async () => {
    const out = await judge(novelAiPng({ text: true, alpha: true, claimBits: 0xffffffff }), 'png', TEST_KEY);
    expect(out.generator).toMatchObject({ where: 'png:tEXt:Comment', signature: 'valid' });
    expect((await judge(novelAiPng({ alpha: true, claimBits: 0xffffffff }), 'png', TEST_KEY)).result).toBe('not_found');
  });

  it('JSON nested 100,000 deep, in every JSON-reading place', async () => {
    const deepObject = '{"a":'.repeat(100_000) + '1' + '}'.repeat(100_000);
    const deepArray = '['.repeat(100_000) + ']'.repeat(100_000);
    for (const deep of [deepObject, deepArray]) {
      for (const keyword of ['parameters', 'prompt', 'workflow', 'invokeai_metadata', 'generation_data', 'parameters-json']) {
        const out = await judge(pngWithText(tEXt(keyword, deep)));
        expect(['found', 'not_found']).toContain(out.result);
      }
      const comment = deep.replace('1}', '1,"signed_hash":"AAAA"}');
      const out = await judge(pngWithText(tEXt('Software', 'NovelAI'), tEXt('Comment', comment)), 'png', TEST_KEY);
      expect(out.generator?.tool).toBe('novelai');
      if (deep === deepObject) expect(out.generator?.signature).toBe('invalid');
    }
  });

  it('a stray NUL at the end of a value is dropped', async () => {
    const out = await judge(pngWithText(tEXt('invokeai_metadata', '{"positive_prompt":"x","seed":3}\0')));
    expect(out.generator?.seed).toBe('3');
  });

  it('damage before the image data with no record read: unavailable, with a reason', async () => {
    const png = pngWithText(tEXt('parameters', A1111));
    const cut = png.slice(0, 60); // inside the tEXt chunk
    expect(await judge(cut)).toEqual({
      result: 'unavailable',
      confidence: 0,
      reason: 'The file is damaged in a way the generator_metadata check cannot read: its "tEXt" chunk\'s length runs past the end of the file.',
    });
    const noHeader = concat(png.subarray(0, 8), tEXt('parameters', A1111));
    expect((await judge(noHeader)).result).toBe('unavailable');
    expect((await judge(new Uint8Array([1, 2, 3]))).reason).toMatch(/PNG signature/);
  });

  it('damage after the records: what was read is reported', async () => {
    const png = pngWithText(tEXt('parameters', A1111));
    const cutInIdat = png.slice(0, png.length - 20);
    expect((await judge(cutInIdat)).generator?.tool).toBe('automatic1111');
    const plain = makePng(patternPixels(4, 4, 3));
    const notFound = await judge(plain.slice(0, plain.length - 12)); // IEND gone
    expect(notFound).toMatchObject({ result: 'not_found', confidence: 0.6 });
    expect(notFound.note).toMatch(/ends without an IEND/);
  });

  it('bad chunk lengths: 0xFFFFFFFF, and past the end of the file', async () => {
    const png = pngWithText(tEXt('parameters', A1111));
    const bad = concat(png.subarray(0, 33), new Uint8Array([0xff, 0xff, 0xff, 0xff]), Buffer.from('tEXtjunk'));
    expect((await judge(bad)).result).toBe('unavailable');
    const after = concat(png.subarray(0, png.length - 12), pngChunk('tEXt', new Uint8Array(4)).subarray(0, 10));
    expect((await judge(after)).generator?.tool).toBe('automatic1111');
  });

  it('a broken EXIF block: unavailable when it is all there is; a WebP chunk running past the file', async () => {
    const tiff = new Uint8Array([0x49, 0x49, 42, 0, 0xf0, 0xff, 0, 0]); // IFD0 offset outside the block
    expect(await judge(jpegWith({ tiff }), 'jpeg')).toMatchObject({ result: 'unavailable', reason: expect.stringMatching(/EXIF block/) });
    const image = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#000' } }).webp().toBuffer();
    const truncated = new Uint8Array(image).slice(0, image.length - 5);
    expect((await judge(truncated, 'webp')).result).toBe('unavailable');
  });

  it('mutated and truncated generator files: an answer every time, never a throw', async () => {
    let state = 7;
    const rnd = () => {
      state = (Math.imul(state, 1103515245) + 12345) >>> 0;
      return state / 2 ** 32;
    };
    const swarm = JSON.stringify({ sui_image_params: { prompt: 'x', model: 'm', seed: 1 } });
    const image = await sharp({ create: { width: 8, height: 8, channels: 4, background: '#123456' } }).webp({ lossless: true }).toBuffer();
    const originals: [Uint8Array, keyof typeof TYPES][] = [
      [novelAiPng({ text: true, alpha: true }), 'png'],
      [pngWithText(tEXt('prompt', COMFY_PROMPT), zTXt('parameters', A1111)), 'png'],
      [jpegWith({ tiff: tiffBlock({ ifd0: [], exif: [{ tag: 0x9286, type: 7, value: userComment(swarm, 'utf16le') }] }) }), 'jpeg'],
      [webpWith(new Uint8Array(image), 8, 8, { alpha: true, tiff: tiffBlock({ ifd0: [{ tag: 0x0110, type: 2, value: `prompt:${COMFY_PROMPT}` }] }) }), 'webp'],
    ];
    for (const [original, type] of originals) {
      for (let k = 0; k < 60; k++) {
        const b = original.slice();
        for (let j = 0; j < 1 + Math.floor(rnd() * 6); j++) b[Math.floor(rnd() * Math.min(b.length, 2048))] = Math.floor(rnd() * 256);
        const bytes = rnd() < 0.25 ? b.slice(0, Math.floor(rnd() * b.length)) : b;
        const out = await generatorMetadata.run({ bytes, type: TYPES[type], sha256: '' }, {});
        expect(['found', 'not_found', 'unavailable']).toContain(out.result);
      }
    }
  });

  it('the detector never throws on garbage of any declared type', async () => {
    const garbage = new Uint8Array(4096).map((_, i) => (i * 2654435761) >>> 24);
    for (const type of Object.values(TYPES)) {
      await expect(generatorMetadata.run({ bytes: garbage, type, sha256: '' }, {})).resolves.toHaveProperty('result');
    }
  });
});

describe('cost', () => {
  it('a camera JPEG with EXIF and XMP but no generator record costs well under 1 ms', async () => {
    const tiff = tiffBlock({
      ifd0: [
        { tag: 0x010f, type: 2, value: 'Canon' },
        { tag: 0x0110, type: 2, value: 'Canon EOS 40D' },
        { tag: 0x0131, type: 2, value: 'GIMP 2.4.5' },
      ],
      exif: [
        { tag: 0x9286, type: 7, value: concat(Buffer.from('\0\0\0\0\0\0\0\0'), new Uint8Array(256)) },
        { tag: 0x927c, type: 7, value: new Uint8Array(2000).fill(7) },
      ],
    });
    const jpeg = jpegWith({ tiff, xmp: xmpPacket({ dc: 'http://purl.org/dc/elements/1.1/' }, 'dc:format="image/jpeg"') });
    for (let i = 0; i < 50; i++) await judge(jpeg, 'jpeg'); // warm up
    const runs = 500;
    const { ms } = await timed(async () => {
      for (let i = 0; i < runs; i++) await judge(jpeg, 'jpeg');
    });
    expect(ms / runs).toBeLessThan(1);
  });
});
