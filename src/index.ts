// The library's public entry, `import { ... } from 'provenance-check'`. Everything here is what the
// CLI is built on: check() and scan() run the engine as `provenance check` does, and
// ProvenanceClient is the /v1 client of its remote mode. Importing this module loads neither
// the c2pa-rs WebAssembly, nor an HTTP stack, nor the daemon or the terminal UI: each is loaded
// when first needed (test/library-import.test.ts).
export { check, crJson, detectors, rubric, scan } from './library/entry.js';
export type { ConformanceEntry, ConformanceOutcome, ConformanceOutput, CrJsonOptions, RubricName, SignalHit, SignalsManifest, SignalsOutput } from './library/c2pa-output.js';
export type { CheckInput, CheckOptions } from './library/check.js';
export type { ScanEntry, ScanError, ScanErrorType, ScanInputs, ScanOptions } from './library/scan.js';
export type { CommonOptions } from './library/options.js';
export {
  cancelScan,
  deleteScan,
  FleetError,
  listScans,
  retryScan,
  runScanWorker,
  scanResults,
  scanStatus,
  startScan,
  type QueueOptions,
  type ScanResultRow,
  type ScanStatus,
  type ScanWorkerOptions,
  type StartOutcome,
  type StartScanOptions,
  type WorkerShare,
  type WorkerSummary,
} from './fleet/entry.js';
export {
  ProvenanceClient,
  type DetectRequest,
  type DetectSource,
  type FileInput,
  type ProvenanceClientOptions,
  type RemoteDetectionResult,
  type RequestOptions,
} from './client/provenance-client.js';
export type { FetchLike } from './client/fetch-transport.js';
export type { ResponseMeta } from './client/api.js';
export type { QuotaInfo } from './client/quota.js';
export {
  ApiError,
  AuthenticationError,
  DownloadFailedError,
  InternalServerError,
  InvalidRequestError,
  MediaTooLargeError,
  NetworkError,
  NotFoundError,
  ProtocolError,
  QuotaExceededError,
  RateLimitedError,
  ServiceUnavailableError,
  StorageFullError,
  ServerBusyError,
  UnsupportedContentTypeError,
  UploadLimitExceededError,
} from './client/errors.js';
export { CheckSelectionError } from './engine/checks.js';
export { InputError } from './engine/input-error.js';
export { TrustAnchorError } from './config/trust-anchor-error.js';
export {
  DETECTOR_IDS,
  HOSTED_DETECTOR_IDS,
  WATERMARK_PAYLOADS,
  type C2paClaims,
  type CatalogueName,
  type C2paValidation,
  type ConformingProduct,
  type CheckResult,
  type CheckedResult,
  type DetectionResult,
  type DetectorId,
  type DetectorInfo,
  type DetectorStatus,
  type ErrorInfo,
  type GeneratorRecord,
  type Match,
  type MediaInfo,
  type UploadRecord,
  type ValidationState,
  type Verdict,
  type VerdictAi,
  type VerdictEvidence,
  type EvidenceKind,
  type WatermarkPayload,
  type WatermarkRecord,
} from './types.js';
