// The /v1 shapes (SPEC 2, CONTRACT "Detection result"), shared by the engine, the CLI, and
// later the daemon and the API client. One place, so the offline and remote paths cannot drift.

export const DETECTOR_IDS = [
  'c2pa',
  'watermark_a',
  'watermark_b',
  'open_content_seal',
  'camera_reference',
] as const;

export type DetectorId = (typeof DETECTOR_IDS)[number];
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
}

export interface Match {
  check: DetectorId;
  result: CheckResult;
  confidence: number;
  /** On a found c2pa match; null when the signing certificate names no organisation. */
  issuer?: string | null;
  claims?: C2paClaims;
  /** On `unavailable`: one sentence saying why. */
  reason?: string;
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

/** What the operator configured for a run, passed by the engine to every detector. */
export interface DetectContext {
  /** PEM trust anchors for C2PA signer validation; none configured when absent. */
  trustAnchorsPem?: string;
}

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
