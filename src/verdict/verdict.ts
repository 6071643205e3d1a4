// One verdict per file (issue 31): what the checks of one result say together about AI, so that
// nobody has to weigh a signed manifest against a watermark and a text record by hand. Shared by
// the CLI (--json lines, --summary, --fail-on verdict=...), the library (check(), scan()), the
// terminal card, the HTML card and the daemon's Verify page; the daemon's /v1 responses carry
// none (they keep the hosted shape). docs/DETECTORS.md "The verdict" is the rule in words.
//
// Pure: a result (and, where the engine of this process read the manifest, its C2PA details) in,
// a Verdict out. A remote result has no ingredient tree, so an AI ingredient is seen only here.
import { aiIngredientOf, aiSignal, c2paDetails, sourceTypeTerm, type C2paDetails } from '../detectors/c2pa-manifest.js';
import { MIDJOURNEY_GUID_WHERE } from '../detectors/generator-midjourney.js';
import type { DetectionResult, EvidenceKind, Match, Verdict, VerdictEvidence } from '../types.js';
import { payloadName, toolDisplayName, UNNAMED_TOOL } from './maker-names.js';
import { CAPTURED_WITH, readSignals } from './signal-verdict.js';

/** Strongest first (types.ts EvidenceKind). */
const RANK: Record<EvidenceKind, number> = { signed_manifest: 0, novelai_signature: 1, pixel_mark: 2, unsigned_record: 3 };

/**
 * A manifest whose signer is not trusted ranks after a record signed with NovelAI's published
 * key (whose signer is known) and before a pixel mark: its signature proves the bytes are as
 * signed, not who signed them.
 */
function rank(e: VerdictEvidence): number {
  return e.kind === 'signed_manifest' && e.trusted === false ? 1.5 : RANK[e.kind];
}

/** A manifest whose names are its unverified signer's claim. */
const unverified = (e: VerdictEvidence) => e.kind === 'signed_manifest' && e.trusted === false;

/**
 * Source types that say a device captured the content (IPTC digital source types): a signed
 * manifest naming one says "not AI-made", which a found AI marker contradicts. Edit and
 * composite types do not: an edit of an AI-made picture is still AI-made in part.
 */
const CAPTURE_TYPES: readonly string[] = ['digitalCapture', 'computationalCapture', 'negativeFilm', 'positiveFilm', 'print', 'compositeCapture'];

/** IPTC: "a composite that includes generative AI output" - contains AI-made content, not all of it. */
const AI_COMPOSITE = 'compositeWithTrainedAlgorithmicMedia';

/**
 * How a manifest's credential reads, in the verdict's words. Only a signer whose certificate
 * chains to a trust anchor in use (the C2PA Trust List by default, or one added) is named as
 * fact; any other signer's names are its own claim, since anyone can make a certificate that
 * says "OpenAI OpCo, LLC" or "Google LLC" (issue 38).
 */
function manifestDetail(match: Match, details: C2paDetails | undefined): { trusted?: boolean; detail: string } {
  const state = match.claims?.validation?.state;
  if (state === 'invalid') return { detail: 'C2PA manifest whose credential is INVALID' };
  if (state === 'trusted') {
    const signer = match.issuer ?? details?.signer.issuer ?? details?.signer.commonName;
    return { trusted: true, detail: signer ? `C2PA manifest signed by trusted signer ${signer}` : 'C2PA manifest signed by a trusted signer' };
  }
  // One wording whether no anchors were configured or the signer chains to none: the same file
  // reads alike locally and through an API, which does not say which anchors it used.
  return { trusted: false, detail: 'signed C2PA manifest whose signer is not on the trust list, so its names are unverified' };
}

/** What a found c2pa match says. `details` is absent for a remote result (no ingredient tree). */
function c2paEvidence(match: Match, details: C2paDetails | undefined): VerdictEvidence {
  const claims = match.claims;
  const intact = claims?.validation?.state !== 'invalid';
  const { trusted, detail } = manifestDetail(match, details);
  const evidence: Omit<VerdictEvidence, 'detail'> = { kind: intact ? 'signed_manifest' : 'unsigned_record', check: 'c2pa', says: 'not_stated' };
  if (!claims) return ordered(evidence, undefined, detail, trusted);
  const maker = c2paMaker(match, details);
  // The C2PA signals first (signal-verdict.ts); where they say nothing, the rules below.
  const reading = readSignals(details?.signals, { trusted: intact && claims.validation?.state === 'trusted', product: details?.device ?? maker });
  if (reading) {
    evidence.says = reading.says;
    if (reading.content) evidence.content = reading.content;
    return ordered(evidence, maker, detail, trusted);
  }
  const signal = aiSignal(claims, details?.sourceTypeAction);
  const ingredient = signal?.ai ? undefined : aiIngredientOf(details?.ingredients);
  if (signal?.ai) {
    const composite = signal.type !== undefined && sourceTypeTerm(signal.type) === AI_COMPOSITE;
    evidence.says = composite ? 'contains' : 'generated';
    if (composite) evidence.content = 'composite with AI-generated parts';
  } else if (ingredient) {
    evidence.says = 'contains';
    evidence.content = ingredient.relationship === 'parentOf' ? 'edit of an AI-made picture' : 'composite with an AI-made part';
  } else if (signal && CAPTURE_TYPES.includes(sourceTypeTerm(signal.type))) {
    evidence.says = 'not_ai';
    evidence.content = `a ${sourceTypeTerm(signal.type)}`;
  }
  return ordered(evidence, maker, detail, trusted);
}

/** kind, check, says, maker, content, detail, trusted: the order the JSON shows them in. `trusted` only on a signed manifest. */
function ordered(e: Omit<VerdictEvidence, 'detail' | 'maker'>, maker: string | undefined, detail: string, trusted?: boolean): VerdictEvidence {
  const { kind, check, says, content } = e;
  const trust = kind === 'signed_manifest' && trusted !== undefined ? { trusted } : {};
  return { kind, check, says, ...(maker ? { maker } : {}), ...(content ? { content } : {}), detail, ...trust };
}

/**
 * The software the manifest names: the agent of the action that named the source type, else the
 * first agent, else the conforming product that signed it (named only for a trusted signer), else
 * the claim generator. Google's Gemini and Imagen pictures name no agent, and their claim
 * generator is a library with build numbers ("Google C2PA Core Generator Library/851316892:851316892"):
 * the product the C2PA lists, "Google Media Processing Services", is what a reader knows.
 */
function c2paMaker(match: Match, details: C2paDetails | undefined): string | undefined {
  const actions = details?.actions ?? [];
  const named = actions.find((a) => a.action === details?.sourceTypeAction && a.digitalSourceType && a.softwareAgent);
  const product = match.claims?.conforming_product?.product;
  return named?.softwareAgent ?? actions.find((a) => a.softwareAgent)?.softwareAgent ?? (product || match.claims?.claim_generator || undefined);
}

/**
 * The CLI's XMP hint (src/media/xmp-hints.ts `Hints`: the packet's Iptc4xmpExt:DigitalSourceType,
 * read from the bytes whatever the checks), as far as the verdict reads it.
 */
export interface XmpHint {
  iptc_digital_source_type?: string;
}

/** What an XMP digital source type says: AI-made, AI-made parts, or nothing the verdict counts. */
function xmpSays(hints: XmpHint | undefined): 'generated' | 'contains' | undefined {
  const type = hints?.iptc_digital_source_type;
  const term = type === undefined ? undefined : sourceTypeTerm(type);
  return term === 'trainedAlgorithmicMedia' ? 'generated' : term === AI_COMPOSITE ? 'contains' : undefined;
}

/**
 * An XMP that states AI origin when no check read it (the generator_metadata check left out by
 * `--catalogue hosted` or a remote check's hosted catalogue, or a file type it does not read):
 * an unsigned record all the same.
 */
function xmpEvidence(says: 'generated' | 'contains'): VerdictEvidence {
  const content = says === 'contains' ? 'composite with AI-generated parts' : undefined;
  return ordered({ kind: 'unsigned_record', check: 'generator_metadata', says, content }, undefined, 'unsigned IPTC source type in the XMP');
}

function generatorEvidence(match: Match, hints: XmpHint | undefined): VerdictEvidence {
  const record = match.generator;
  const signed = record?.signature === 'valid';
  const named = record !== undefined && record.tool !== UNNAMED_TOOL;
  const detail = signed
    ? "record signed with the generator's key"
    : record?.signature === 'invalid'
      ? 'record whose signature FAILS'
      : !named
        ? 'unsigned label in the file that names no generator'
        : record.where === MIDJOURNEY_GUID_WHERE
          ? // The fields do not name the tool: say the name is read from their form.
            'unsigned IPTC job id in the form Midjourney writes'
          : 'unsigned record in the file';
  const kind = signed ? 'novelai_signature' : 'unsigned_record';
  // A record read from the XMP (its source type, or a credit beside it): the packet's source type
  // says whether all of the picture is AI-made or a composite with AI-made parts.
  const composite = record?.where.startsWith('xmp:') === true && xmpSays(hints) === 'contains';
  const says = composite ? 'contains' : 'generated';
  return ordered({ kind, check: 'generator_metadata', says, content: composite ? 'composite with AI-generated parts' : undefined }, named ? toolDisplayName(record) : undefined, detail);
}

function watermarkEvidence(match: Match): VerdictEvidence {
  const mark = match.watermark;
  const maker = mark ? payloadName(mark.payload) : undefined;
  const detail = mark ? `${maker} invisible watermark (${mark.bits_matched}/${mark.bits_total} bits)` : 'invisible watermark';
  return ordered({ kind: 'pixel_mark', check: 'invisible_watermark', says: 'generated' }, maker, detail);
}

function cameraEvidence(): VerdictEvidence {
  return ordered({ kind: 'unsigned_record', check: 'camera_reference', says: 'not_ai', content: 'a camera capture' }, 'Apple iPhone/iPad camera', 'camera EXIF');
}

function evidenceOf(match: Match, details: C2paDetails | undefined, hints: XmpHint | undefined): VerdictEvidence | undefined {
  if (match.result !== 'found') return undefined;
  switch (match.check) {
    case 'c2pa':
      return c2paEvidence(match, details);
    case 'generator_metadata':
      return generatorEvidence(match, hints);
    case 'invisible_watermark':
      return watermarkEvidence(match);
    case 'camera_reference':
      return cameraEvidence();
    default:
      // The planned checks find nothing yet; a check this build does not know says nothing here.
      return undefined;
  }
}

const saysAi = (e: VerdictEvidence) => e.says === 'generated' || e.says === 'contains';

function side(e: VerdictEvidence): string {
  const what = [e.maker, e.content].filter(Boolean).join(', ');
  return `${e.check} (${e.detail}${what ? `: ${what}` : ''})`;
}

/**
 * The verdict of one result. `details`: the C2PA report details of its c2pa match, when this
 * process's engine (or a worker's, attached) read the manifest; looked up by default. `hints`:
 * the CLI's XMP hint for the file, when it read one.
 */
export function verdictOf(result: Pick<DetectionResult, 'matches'>, details?: C2paDetails, hints?: XmpHint): Verdict {
  const c2paClaims = result.matches.find((m) => m.check === 'c2pa')?.claims;
  const c2pa = details ?? c2paDetails(c2paClaims);
  const found = result.matches.flatMap((m) => evidenceOf(m, c2pa, hints) ?? []);
  const xmp = xmpSays(hints);
  if (xmp && !found.some((e) => e.check === 'generator_metadata')) found.push(xmpEvidence(xmp));
  // Stable sort: within a kind, catalogue order (the order of `matches`).
  const evidence = found.sort((a, b) => rank(a) - rank(b));
  const ai = evidence.filter(saysAi);
  // The strongest evidence that found an AI marker decides between generated and contains.
  // A watermark names a model family, a record or a manifest the tool: the tool first.
  const named = ai.length ? [...ai.filter((e) => e.kind !== 'pixel_mark'), ...ai.filter((e) => e.kind === 'pixel_mark')] : evidence;
  // `maker` is a name a user may show as fact: never one only an unverified signer gives.
  const naming = named.find((e) => e.maker);
  const maker = named.find((e) => e.maker && !unverified(e))?.maker;
  const claimed = naming && unverified(naming) ? naming.maker : undefined;
  const mayContain = !ai.length && evidence.some((e) => e.says === 'may_contain');
  const verdict: Verdict = {
    ai: ai[0]?.says === 'contains' ? 'contains' : ai.length ? 'generated' : mayContain ? 'may_contain' : 'none_found',
    ...(maker ? { maker } : {}),
    ...(claimed ? { claimed_maker: claimed } : {}),
    evidence,
  };
  const notAi = evidence.filter((e) => e.says === 'not_ai');
  if (ai.length && notAi.length) {
    verdict.disagreement = `${notAi.map(side).join(' and ')} ${notAi.length === 1 ? 'says' : 'say'} not AI-made, but ${ai.map(side).join(' and ')} ${ai.length === 1 ? 'says' : 'say'} AI-made`;
  }
  return verdict;
}

/**
 * The verdict in one line, for the top of a card: "AI-generated: Adobe Firefly (C2PA manifest
 * signed by trusted signer Adobe Inc.)", "Contains AI-generated content: Google Gemini edit of an
 * AI-made picture (...)", "AI mark: SDXL invisible watermark (48/48 bits)", "No AI marker found
 * (that proves nothing)". A manifest whose signer is not trusted gives its names "as claimed"; a
 * signed capture manifest is named after "No AI marker found". Raw: it carries names from the
 * file, so callers escape it.
 */
export function verdictLine(verdict: Verdict): string {
  const claimed = (e: VerdictEvidence) => (unverified(e) ? ', as claimed' : '');
  if (verdict.ai === 'may_contain') {
    const may = verdict.evidence.find((e) => e.says === 'may_contain')!;
    return `May contain AI-generated content: ${[may.maker, may.content].filter(Boolean).join(', ')}${claimed(may)} (${may.detail})`;
  }
  const captured = verdict.ai === 'none_found' ? verdict.evidence.find((e) => e.says === 'not_ai' && e.content?.startsWith(CAPTURED_WITH)) : undefined;
  if (captured) return `Captured ${captured.content!.slice(CAPTURED_WITH.length - 'with '.length)} (${captured.detail})`;
  const top = verdict.evidence.find(saysAi);
  if (verdict.ai === 'none_found' || !top) {
    const capture = verdict.evidence[0];
    if (capture?.kind === 'signed_manifest' && capture.says === 'not_ai') {
      const what = [capture.maker, capture.content].filter(Boolean).join(', ');
      return `No AI marker found; captured${claimed(capture)}: ${what} (${capture.detail})`;
    }
    return 'No AI marker found (that proves nothing)';
  }
  if (verdict.ai === 'contains') {
    const what = [top.maker, top.content].filter(Boolean).join(' ');
    return `Contains AI-generated content: ${what || 'AI-made content'}${claimed(top)} (${top.detail})`;
  }
  if (top.kind === 'pixel_mark') return `AI mark: ${top.detail}`;
  return top.maker ? `AI-generated: ${top.maker}${claimed(top)} (${top.detail})` : `AI-generated${claimed(top) ? ', as claimed' : ''} (${top.detail})`;
}

/** The second line when checks disagree, else undefined. Raw, as verdictLine. */
export function disagreementLine(verdict: Verdict): string | undefined {
  return verdict.disagreement ? `Checks disagree: ${verdict.disagreement}` : undefined;
}
