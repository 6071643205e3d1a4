// AUTOMATIC1111's `parameters` text and the forks that write it (Forge, Forge Neo, reForge,
// SD.Next; Fooocus's "a1111" scheme; ComfyUI nodes that save in this format), and InvokeAI 2.x's
// `Dream` command line. The layout, from modules/infotext_utils.py (parse_generation_parameters):
//   prompt lines
//   Negative prompt: negative lines
//   Steps: 20, Sampler: Euler a, CFG scale: 7, Seed: 1234, Size: 512x512, Model: name, Version: v1.10.1
// The settings line is the last line with at least three "Key: value" pairs; values may be quoted.
// Dynamic Prompts' template lines may follow it (see TEMPLATE_LINE).
import type { GeneratorRecord } from '../types.js';
import { RANK, clipPrompt, modelName, seedString, type Candidate } from './generator-fields.js';
import { isComfySaveNodeSettings } from './generator-comfyui-forms.js';
import { isSdNextSettings } from './generator-sdnext.js';

/** The settings line is read up to this many characters. */
const MAX_SETTINGS_CHARS = 64 * 1024;
const MAX_PARAMS = 500;
/** A key as A1111's re_param_code accepts it (`\w[\w \-/]+`), bounded. */
const KEY = /^\w[\w \-/]{0,63}$/;

export interface A1111Parameters {
  prompt: string;
  settings: Map<string, string>;
}

/** `\w` of Python's re on ASCII: a letter, a digit or `_`. */
function isWordChar(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x5a) || (c >= 0x61 && c <= 0x7a) || c === 0x5f;
}

/** A character of re_param_code's key class `[\w \-/]`. */
function isKeyChar(c: number): boolean {
  return isWordChar(c) || c === 0x20 || c === 0x2d || c === 0x2f;
}

function isSpace(c: number): boolean {
  return c === 0x20 || (c >= 0x09 && c <= 0x0d);
}

/**
 * The `Key: value, Key: "quoted, value"` pairs of a settings line, as A1111's re_param_code
 * (`\s*(\w[\w \-/]+):\s*("(?:\\.|[^\\"])+"|[^,]*)(?:,|$)`, searched along the line by findall)
 * reads them, by a hand-written scan rather than that regex: its nested quantifiers backtrack
 * quadratically on a hostile line, and every step here moves forward.
 * The key of a colon is the run of key characters that ends at it, from its first word character:
 * text before that run is skipped as the regex's search skips it, such as a bare segment
 * (`Steps: 20, Hires upscale, Seed: 1`: A1111's writer puts the key alone when the value equals
 * it) or a colon with no key before it.
 */
function params(text: string): Map<string, string> {
  const out = new Map<string, string>();
  const line = text.slice(0, MAX_SETTINGS_CHARS);
  const n = line.length;
  let i = 0;
  while (i < n && out.size < MAX_PARAMS) {
    const colon = line.indexOf(':', i);
    if (colon < 0) break;
    let start = colon;
    while (start > i && isKeyChar(line.charCodeAt(start - 1))) start--;
    while (start < colon && !isWordChar(line.charCodeAt(start))) start++;
    if (colon - start < 2) {
      i = colon + 1; // `\w[\w \-/]+` is two characters at least: no pair at this colon
      continue;
    }
    const key = line.slice(start, colon).trim();
    let j = colon + 1;
    while (j < n && isSpace(line.charCodeAt(j))) j++;
    let value: string | undefined;
    if (line[j] === '"') {
      // The quoted form only when it closes and a comma or the end follows; else `[^,]*`.
      let k = j + 1;
      while (k < n && line[k] !== '"') k += line[k] === '\\' ? 2 : 1;
      if (k < n && k > j + 1 && (k + 1 === n || line[k + 1] === ',')) {
        value = line.slice(j + 1, k);
        i = k + 2;
      }
    }
    if (value === undefined) {
      const comma = line.indexOf(',', j);
      const end = comma < 0 ? n : comma;
      value = line.slice(j, end).trim();
      i = end + 1;
    }
    if (KEY.test(key) && !out.has(key)) out.set(key, value);
  }
  return out;
}

/** Whether `settings` is a settings line's: three pairs at least, Steps or Seed among them. */
function isSettings(settings: Map<string, string>): boolean {
  return settings.size >= 3 && (settings.has('Steps') || settings.has('Seed'));
}

/**
 * A line the Dynamic Prompts extension (adieyal/sd-dynamic-prompts) appended after the settings
 * line: every release up to 2.17.0 (the last tag; until 34ec7fd on main, December 2023),
 * pnginfo_saver.py PngInfoSaver.update_pnginfo (at 2817d2e, lines 54-66)
 * added `\nTemplate: <prompt template>` and `\nNegative Template: <negative template>` to the
 * saved text, each template as typed, newlines and all. Its main branch since writes them into the
 * settings line as other keys (dynamic_prompting.py lines 519-524), which needs nothing here.
 */
const TEMPLATE_LINE = /^(?:Negative )?Template: /;

/**
 * The settings of an A1111-style text and the line they are on: the line just before the first
 * of Dynamic Prompts' template lines when it is a settings line (the templates after it, however
 * many lines they take and whatever they look like, are not the settings); else the last line,
 * as A1111 reads it.
 */
function settingsLine(lines: string[]): { at: number; settings: Map<string, string> } | undefined {
  for (let i = 1; i < lines.length; i++) {
    if (!TEMPLATE_LINE.test(lines[i]!)) continue;
    const settings = params(lines[i - 1]!);
    if (isSettings(settings)) return { at: i - 1, settings };
  }
  const last = params(lines[lines.length - 1]!);
  return isSettings(last) ? { at: lines.length - 1, settings: last } : undefined;
}

/** The prompt and settings of an A1111-style text; undefined when it has no settings line. */
export function parseA1111(text: string): A1111Parameters | undefined {
  const trimmed = text.trim();
  const lines = trimmed.split('\n');
  const found = settingsLine(lines);
  if (!found) return undefined;
  const { at, settings } = found;
  const body = lines.slice(0, at);
  const negative = body.findIndex((l) => l.startsWith('Negative prompt:'));
  const prompt = (negative < 0 ? body : body.slice(0, negative)).join('\n').trim();
  return { prompt, settings };
}

/** The fork an A1111-style text names, from its App and Version fields (sd-metadata's rules). */
function appOf(settings: Map<string, string>): { tool: string; app: string } {
  const version = settings.get('Version') ?? '';
  // `App: SD.Next`, or the keys only SD.Next writes (generator-sdnext.ts).
  if (isSdNextSettings(settings)) return { tool: 'automatic1111', app: 'SD.Next' };
  if (/^neo/i.test(version)) return { tool: 'automatic1111', app: 'Forge Neo' };
  if (/^classic/i.test(version)) return { tool: 'automatic1111', app: 'Forge Classic' };
  if (/reforge/i.test(version)) return { tool: 'automatic1111', app: 'reForge' };
  if (/^f\d/.test(version)) return { tool: 'automatic1111', app: 'Stable Diffusion WebUI Forge' };
  if (/^Fooocus\b/i.test(version)) return { tool: 'fooocus', app: 'Fooocus' };
  if (/^ComfyUI\b/i.test(version) || isComfySaveNodeSettings(settings)) return { tool: 'comfyui', app: 'ComfyUI' };
  return { tool: 'automatic1111', app: 'AUTOMATIC1111' };
}

/** A record from an A1111-style text read at `where`, or undefined when the text is not one. */
export function a1111Candidate(text: string, where: string): Candidate | undefined {
  const parsed = parseA1111(text);
  if (!parsed) return undefined;
  const { tool, app } = appOf(parsed.settings);
  const record: GeneratorRecord = { tool, app, where };
  const model = modelName(parsed.settings.get('Model'));
  const seed = seedString(parsed.settings.get('Seed'));
  const prompt = clipPrompt(parsed.prompt);
  if (model) record.model = model;
  if (seed) record.seed = seed;
  if (prompt) record.prompt = prompt;
  // Fooocus's own record is more specific than the A1111 family it imitates.
  return { record, rank: tool === 'fooocus' ? RANK.specific : RANK.generic, strength: 'structured' };
}

/**
 * InvokeAI 2.x's `Dream` text: the prompt in quotes, then dream.py switches
 * (`-s` steps, `-S` seed, `-W`/`-H` size, `-C` cfg, `-A` sampler).
 */
export function dreamCandidate(text: string, where: string): Candidate | undefined {
  const m = /^\s*"((?:\\.|[^"\\])*)"\s*(.*)$/s.exec(text.slice(0, MAX_SETTINGS_CHARS));
  const prompt = m ? m[1]! : text.split(/\s-[A-Za-z]\b/)[0]!;
  const switches = m ? m[2]! : text;
  const seed = /(?:^|\s)(?:-S|--seed[= ])\s*(-?\d+)/.exec(switches)?.[1];
  if (!seed && !/(?:^|\s)-s\s*\d+/.test(switches)) return undefined;
  const record: GeneratorRecord = { tool: 'invokeai', app: 'InvokeAI', where };
  if (seed) record.seed = seedString(seed)!;
  const p = clipPrompt(prompt);
  if (p) record.prompt = p;
  return { record, rank: RANK.specific, strength: 'structured' };
}
