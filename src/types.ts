// The /v1 shapes (SPEC 2, CONTRACT "Detection result"), shared by the engine, the CLI, and
// later the daemon and the API client. One place, so the offline and remote paths cannot drift.

/** The hosted service's five detectors (SPEC 2.1), in catalogue order. */
export const HOSTED_DETECTOR_IDS = [
  'c2pa',
  'watermark_a',
  'watermark_b',
  'open_content_seal',
  'camera_reference',
] as const;

/** Every detector, in catalogue order: the hosted five, then the ones this project adds
 * (CONTRACT "Detectors beyond the hosted catalogue"). */
export const DETECTOR_IDS = [...HOSTED_DETECTOR_IDS, 'generator_metadata', 'invisible_watermark'] as const;

export type DetectorId = (typeof DETECTOR_IDS)[number];

/** `full`: every detector (the default); `hosted`: exactly the hosted five, for testing clients
 * against the hosted contract. */
export type CatalogueName = 'full' | 'hosted';
export const CATALOGUE_NAMES: readonly CatalogueName[] = ['full', 'hosted'];
export type DetectorStatus = 'available' | 'planned';
export type CheckResult = 'found' | 'not_found' | 'unavailable';
export type ValidationState = 'valid' | 'invalid' | 'trusted';

/** A catalogue entry as GET /v1/detectors returns it (SPEC 2.1). */
export interface DetectorInfo {
  id: DetectorId;
  name: string;
  description: string;
  media_types: string[];
  status: DetectorStatus;
  inverse: boolean;
}

export interface DetectorsBody {
  detectors: DetectorInfo[];
}

export interface MediaInfo {
  type: string;
  bytes: number;
  sha256: string;
}

export interface C2paValidation {
  state: ValidationState;
  codes: string[];
}

export interface C2paClaims {
  claim_generator: string;
  assertions: string[];
  signature_verified: boolean;
  validation?: C2paValidation;
  /** IPTC digital source type URI named by the active manifest's actions (CONTRACT, additive). */
  digital_source_type?: string;
  /** true: trainedAlgorithmicMedia, compositeWithTrainedAlgorithmicMedia or the legacy com.adobe.generative-ai assertion (not algorithmicMedia); false for any other named type; absent when nothing is named. */
  ai_generated?: boolean;
  /** The signature time, ISO 8601 UTC, when the manifest has one. */
  signed_at?: string;
  /** How many ingredients the active manifest lists. */
  ingredients?: number;
  /** Only for a trusted signer: the C2PA Conforming Products List's generator product its certificate names (docs/C2PA.md). */
  conforming_product?: ConformingProduct;
}

/** A generator product of the C2PA Conforming Products List, as a trusted manifest's claims name it. */
export interface ConformingProduct {
  /** Who applied: `Google LLC`, `OpenAI OpCo, LLC`. */
  applicant: string;
  /** The product, the common name of its certificates: `Pixel Camera`, `OpenAI Media Service`. */
  product: string;
  /** The highest assurance level the program granted it (1 or 2). */
  max_assurance_level: number;
  /** The list's status for it: `conformant`. */
  status: string;
}

/** What a generator wrote into the file (CONTRACT: generator_metadata's found match). */
export interface GeneratorRecord {
  /** `automatic1111`, `comfyui`, `invokeai`, `novelai`, `swarmui`, `fooocus`, ... (lower case). */
  tool: string;
  /** The program by name when the record says which one (a fork of AUTOMATIC1111, a version). */
  app?: string;
  /** Which record was read: `png:tEXt:parameters`, `exif:UserComment`, `alpha-lsb:stealth_pngcomp`, ... */
  where: string;
  model?: string;
  /** A string: seeds go past 2^53. */
  seed?: string;
  /** At most 500 characters. */
  prompt?: string;
  /** For records the generator signs (NovelAI's Ed25519 signed_hash); absent otherwise. */
  signature?: 'valid' | 'invalid';
}

export const WATERMARK_PAYLOADS = ['sdxl48', 'StableDiffusionV1', 'StableDiffusionV1-Inpainting', 'SDV2', 'InvokeAI'] as const;
export type WatermarkPayload = (typeof WATERMARK_PAYLOADS)[number];

/** An invisible-watermark mark read from the pixels (CONTRACT: invisible_watermark's found match). */
export interface WatermarkRecord {
  method: 'dwtDct';
  payload: WatermarkPayload;
  bits_matched: number;
  bits_total: number;
}

export interface Match {
  /** One of DETECTOR_IDS from this build's engine. From a remote API, possibly a lower-case id
   * this build does not know (a detector the hosted catalogue added later: client/v1-shapes.ts
   * passes it through), so readers keep a default for an id they do not handle. */
  check: DetectorId;
  result: CheckResult;
  confidence: number;
  /** On a found c2pa match; null when the signing certificate names no organisation. */
  issuer?: string | null;
  claims?: C2paClaims;
  /** On `unavailable`: one sentence saying why. */
  reason?: string;
  /** On a found generator_metadata match. */
  generator?: GeneratorRecord;
  /** On a found invisible_watermark match. */
  watermark?: WatermarkRecord;
  /** A sentence on a result that needs one (a picture too small or too large to carry a watermark). */
  note?: string;
}

export interface DetectionResult {
  id: string;
  media: MediaInfo;
  matches: Match[];
  checks_run: DetectorId[];
  duration_ms: number;
}

/** The media a detector reads: the whole file's bytes plus what the engine learnt of them. */
export interface Media {
  bytes: Uint8Array;
  type: string;
  sha256: string;
}

/** A detector's own verdict; the engine adds `check` and applies the catalogue rules. */
export type DetectorOutcome = Omit<Match, 'check'>;

/**
 * One of the C2PA's published lists of trust anchors, as a file that is read only where a
 * manifest is found (docs/C2PA.md "Trust"): the C2PA Trust List (claim signers' certificate
 * authorities) or the C2PA TSA Trust List (time-stamping authorities).
 */
export interface TrustListFile {
  list: 'c2pa-trust-list' | 'c2pa-tsa-trust-list';
  /** Absolute path of the PEM file. */
  file: string;
  /** `bundled`: shipped in the package (data/c2pa/); `updated`: put in the config folder by `provenance trust update`. */
  origin: 'bundled' | 'updated';
  /** ISO 8601. Bundled: when the list last changed at its source (data/c2pa/source.json); updated: when it was fetched or taken from a file. */
  date: string;
}

/**
 * The C2PA trust anchors a check uses. The lists are paths (read by the c2pa check only when it
 * finds a manifest, so a file without one, and a worker's task message, never carry them); the
 * PEM text is anchors given by hand (`trust add`, the trust_anchors setting) or, alone, those that
 * replace the lists (`--trust-anchors`, the library's `trustAnchors`). Neither: no anchors.
 */
export interface TrustOptions {
  trustLists?: readonly TrustListFile[];
  trustAnchorsPem?: string;
}

/**
 * What a c2pa read was checked against, for the card, the verdict and the reports (the c2pa
 * details, never the /v1 result). `anchors`: the C2PA lists (with any anchors added by hand),
 * only anchors the user gave, or none. `trustedBy`: where a trusted signer's chain ends (absent
 * unless the state is `trusted`): at an anchor of the C2PA lists, or at one the user added or
 * gave. `lists`: the lists read, with their origin and date.
 */
export interface C2paTrust {
  anchors: 'c2pa-lists' | 'own' | 'none';
  trustedBy?: 'c2pa-trust-list' | 'own';
  lists?: TrustListFile[];
}

/** What the operator configured for a run, passed by the engine to every detector. */
export type DetectContext = TrustOptions;

export interface Detector extends DetectorInfo {
  run(media: Media, context: DetectContext): Promise<DetectorOutcome>;
}

/** 1 MB = 1,048,576 bytes (CONTRACT "Sizes"); limits apply to the decoded file. */
export const MB = 1_048_576;
/** Largest file sent inline: base64 `media` or a multipart `file` (SPEC 8.3). */
export const INLINE_MAX_BYTES = 4 * MB;
/** Largest file taken by `url` or by `upload` (SPEC 8.3). */
export const REMOTE_MAX_BYTES = 25 * MB;

/** 201 body of POST /v1/uploads (CONTRACT "Keys, accounts, uploads"). */
export interface UploadRecord {
  id: string;
  bytes: number;
  sha256: string;
  type: string;
  created_at: string;
  expires_at: string;
}

/** CONTRACT error body, also used for per-input errors on NDJSON lines. */
export interface ErrorInfo {
  type: string;
  message: string;
  param?: string;
}

/**
 * What the checks of one file say together about AI (docs/DETECTORS.md "The verdict"). Not part
 * of the /v1 result: the CLI's --json lines, its --summary and the library's check()/scan() add
 * it; the daemon's /v1 responses keep the hosted shape. `generated`: a check says AI made the
 * file; `contains`: a check says the file contains AI-made content (an edit of an AI-made
 * picture, a composite with AI parts); `may_contain`: a signed manifest's C2PA signals say the
 * file may contain AI-made content (a composition, a screen capture; docs/C2PA.md) and no check
 * found more; `none_found`: no check found an AI marker (that proves nothing).
 */
export type VerdictAi = 'generated' | 'contains' | 'may_contain' | 'none_found';
export const VERDICT_AI: readonly VerdictAi[] = ['generated', 'contains', 'may_contain', 'none_found'];

/**
 * How strong a piece of evidence is, strongest first: a C2PA manifest whose credential is intact;
 * a NovelAI record whose Ed25519 signature verifies; an invisible watermark in the pixels; a
 * record anyone can write (a generator's text, camera EXIF, a C2PA manifest whose credential is
 * invalid or a NovelAI record whose signature fails).
 */
export type EvidenceKind = 'signed_manifest' | 'novelai_signature' | 'pixel_mark' | 'unsigned_record';

/** One check's say in a verdict. */
export interface VerdictEvidence {
  kind: EvidenceKind;
  check: DetectorId;
  /** What this check says: AI-made, contains AI-made content, may contain it (C2PA signals), not AI-made (a capture, an edit), or nothing either way. */
  says: 'generated' | 'contains' | 'may_contain' | 'not_ai' | 'not_stated';
  /** The tool, camera or model family this check names, as it names it. */
  maker?: string;
  /** How strong it is, in a few words: `signed C2PA manifest`, `unsigned record in the file`, `SDXL invisible watermark (48/48 bits)`. */
  detail: string;
  /** What the check says the content is, when more than AI-made: `edit of an AI-made picture`, `a digitalCapture`. */
  content?: string;
  /**
   * On a `signed_manifest` only: whether its signer's certificate chains to a trust anchor in use
   * (the C2PA Trust List, or one added). Untrusted, the names in the manifest are its signer's claim.
   */
  trusted?: boolean;
}

export interface Verdict {
  ai: VerdictAi;
  /** The tool, from the strongest evidence that names one and agrees with `ai`; never from a manifest whose signer is not trusted (see `claimed_maker`). */
  maker?: string;
  /**
   * The tool a C2PA manifest whose signer is not trusted names, where that manifest would have
   * given `maker`: a name its signer claims, which anyone can write into a certificate and a manifest.
   */
  claimed_maker?: string;
  /** Every check that found something, strongest first (a check that found nothing is not listed). */
  evidence: VerdictEvidence[];
  /**
   * Present when checks disagree: some say AI-made (or contains), others say not AI-made (a
   * signed manifest naming a camera capture, camera EXIF). One sentence naming both sides. `ai`
   * then follows the evidence that found an AI marker: a marker found is not undone by another
   * check's claim.
   */
  disagreement?: string;
}

/** The library's check() and scan() result: the /v1 detection result plus the file's verdict. */
export interface CheckedResult extends DetectionResult {
  verdict: Verdict;
}
