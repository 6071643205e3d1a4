// Midjourney's records (generator-midjourney.ts): the Description of a download from
// midjourney.com, "<prompt> --ar ... Job ID: <uuid>", and the XMP hint (DigImageGUID holding the
// job id beside DigitalSourceType trainedAlgorithmicMedia), as picteus/picteus
// extensions/instances/midjourney reads them.
import { describe, expect, it } from 'vitest';
import { RANK } from '../src/detectors/generator-fields.js';
import { MIDJOURNEY_GUID_WHERE, midjourneyCandidate, midjourneyGuidCandidate } from '../src/detectors/generator-midjourney.js';

const JOB = '8b9e5a2c-4f1d-4c3a-9e7b-2d6f1a0c3b5e';
const TRAINED = 'http://cv.iptc.org/newscodes/digitalsourcetype/trainedAlgorithmicMedia';

describe('the Description with its Job ID', () => {
  it('names Midjourney with the prompt before the Job ID (its spaces trimmed)', () => {
    const c = midjourneyCandidate(`a lighthouse at dusk --ar 16:9 --v 6.1   Job ID: ${JOB}`, 'png:tEXt:Description')!;
    expect(c).toStrictEqual({
      record: { tool: 'midjourney', app: 'Midjourney', where: 'png:tEXt:Description', prompt: 'a lighthouse at dusk --ar 16:9 --v 6.1' },
      rank: RANK.generic,
      strength: 'structured',
    });
  });

  it('the id in any case and with or without the space; no prompt when nothing comes before it', () => {
    expect(midjourneyCandidate(`Job ID:${JOB}`, 'exif:ImageDescription')?.record).toStrictEqual({
      tool: 'midjourney',
      app: 'Midjourney',
      where: 'exif:ImageDescription',
    });
    expect(midjourneyCandidate(`a cat job id: ${JOB.toUpperCase()}`, 'd')?.record.prompt).toBe('a cat');
  });

  it('no record without a whole job id', () => {
    expect(midjourneyCandidate(undefined, 'd')).toBeUndefined();
    expect(midjourneyCandidate('', 'd')).toBeUndefined();
    expect(midjourneyCandidate('a cat --v 6', 'd')).toBeUndefined();
    expect(midjourneyCandidate(`a cat Job ID: ${JOB.slice(1)}`, 'd')).toBeUndefined();
    expect(midjourneyCandidate(`a cat Job ID: ${JOB.replace('-4f1d-', '-4f1-')}`, 'd')).toBeUndefined();
    expect(midjourneyCandidate(`a cat Job ID: ${JOB.replace('-4c3a-', '-4c3-')}`, 'd')).toBeUndefined();
    expect(midjourneyCandidate(`a cat Job ID: ${JOB.replace('-9e7b-', '-9e7-')}`, 'd')).toBeUndefined();
    expect(midjourneyCandidate(`a cat Job ID: ${JOB.slice(0, -1)}`, 'd')).toBeUndefined();
    expect(midjourneyCandidate(`a cat Job ID: ${JOB.replace('8b', 'xg')}`, 'd')).toBeUndefined();
  });
});

describe('the XMP job id hint', () => {
  it('a job id beside trainedAlgorithmicMedia: Midjourney, inferred, with the id in the note', () => {
    expect(midjourneyGuidCandidate(JOB, TRAINED)).toStrictEqual({
      record: { tool: 'midjourney', app: 'Midjourney', where: MIDJOURNEY_GUID_WHERE },
      rank: RANK.inferred,
      strength: 'inferred',
      note:
        `Named Midjourney from XMP Iptc4xmpExt:DigImageGUID ${JOB} (a job id, as Midjourney writes it) beside ` +
        'DigitalSourceType trainedAlgorithmicMedia; both are IPTC fields that any tool could write.',
    });
    expect(MIDJOURNEY_GUID_WHERE).toBe('xmp:Iptc4xmpExt:DigImageGUID');
    expect(midjourneyGuidCandidate(JOB.toUpperCase(), TRAINED)?.record.tool).toBe('midjourney');
  });

  it.each([
    ['no GUID', undefined, TRAINED],
    ['an empty GUID', '', TRAINED],
    ['no source type', JOB, undefined],
    ['another source type', JOB, 'http://cv.iptc.org/newscodes/digitalsourcetype/digitalCapture'],
    ['a composite', JOB, 'http://cv.iptc.org/newscodes/digitalsourcetype/compositeWithTrainedAlgorithmicMedia'],
    ['a source type that only starts like it', JOB, `${TRAINED}Plus`],
    ['text before the id', `x${JOB}`, TRAINED],
    ['text after the id', `${JOB}x`, TRAINED],
    ['a short group', JOB.replace('-4f1d-', '-4f1-'), TRAINED],
    ['a short third group', JOB.replace('-4c3a-', '-4c3-'), TRAINED],
    ['a short fourth group', JOB.replace('-9e7b-', '-9e7-'), TRAINED],
    ['a short last group', JOB.slice(0, -1), TRAINED],
    ['a short first group', JOB.slice(1), TRAINED],
    ['not hex', JOB.replace('8b', 'xg'), TRAINED],
  ])('%s: nothing', (_, guid, type) => {
    expect(midjourneyGuidCandidate(guid, type)).toBeUndefined();
  });
});
