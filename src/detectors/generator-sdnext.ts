// SD.Next (vladmandic/automatic) writes AUTOMATIC1111's `parameters` layout. Since October 2023
// its settings line says so (`App: SD.Next`, modules/processing_info.py); before that it did not,
// and the record was told from AUTOMATIC1111's only by keys that SD.Next's create_infotext added
// and that AUTOMATIC1111 and Forge never write (checked against both: neither has them):
//   - `Parser:` shared.opts.prompt_attention, every record from May 2023 (commit 794b23cc);
//   - `Operations:` the processing steps run ("txt2img", "hires; txt2img"...), every record from
//     July 2023 (aa62f6d8);
//   - `Backend:` `Original` / `Diffusers` (August 2023, eeca263b), `Legacy` later: a key other
//     programs might use for something else, so only with those values;
//   - `Latent sampler:` on records of a second pass (July to September 2023, 8b24efe1, 5b622cdf).
// SD.Next's own `Version:` is a 7-character git commit (installer.py git_commit), which can look
// like Forge's `f<digit>...` versions: the SD.Next keys are looked at before the version is.

const SD_NEXT_ONLY_KEYS = ['Parser', 'Operations', 'Latent sampler'];
const SD_NEXT_BACKENDS = new Set(['Original', 'Diffusers', 'Legacy']);

/** Whether an A1111-style settings line was written by SD.Next (with or without its App field). */
export function isSdNextSettings(settings: ReadonlyMap<string, string>): boolean {
  if (/^SD\.?Next$/i.test(settings.get('App') ?? '')) return true;
  if (SD_NEXT_ONLY_KEYS.some((k) => settings.has(k))) return true;
  return SD_NEXT_BACKENDS.has(settings.get('Backend') ?? '');
}
