// NovelAI's Ed25519 signature over its own images, checked as nai_sig.py does
// (NovelAI/novelai-image-metadata, nai_sig.py: _verify_signed_hash, verify_metadata_is_novelai):
// - the comment is the JSON of the record's "Comment" (when that JSON itself holds a "Comment"
//   string, that string's JSON: Metadata.decoded_comment);
// - its "signed_hash" is a base64 Ed25519 signature; the key is deleted from the comment;
// - the message is the image's RGB samples (numpy `image_array[:, :, :3].tobytes()`: row-major,
//   8 bits each, alpha dropped) followed by the UTF-8 of Python's `json.dumps(comment)`;
// - the public key is NovelAI's, published in nai_sig.py as the base64 default of
//   verify_metadata_is_novelai's `verify_key_hex` argument.
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import type { RawPixels } from '../media/pixels.js';
import { parsePythonJson, pythonJsonDumps, type PyValue } from './python-json.js';

/** NovelAI's published verification key (32 raw bytes, base64), from nai_sig.py. */
export const NOVELAI_PUBLIC_KEY_BASE64 = 'Y2JcQAOhLwzwSDUJPNgL04nS0Tbqm7cSRc4xk0vRMic=';

export type SignatureState = 'valid' | 'invalid' | 'absent';

/** An Ed25519 public key from its 32 raw bytes (base64), as node:crypto takes it: a JWK. */
export function ed25519PublicKey(rawBase64: string): KeyObject {
  const x = Buffer.from(rawBase64, 'base64').toString('base64url');
  return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x }, format: 'jwk' });
}

let novelAiKey: KeyObject | undefined;
/** NovelAI's key as a KeyObject, made once (the key every check uses unless a test injects one). */
export function novelAiPublicKey(): KeyObject {
  novelAiKey ??= ed25519PublicKey(NOVELAI_PUBLIC_KEY_BASE64);
  return novelAiKey;
}

type PyObject = Extract<PyValue, { kind: 'object' }>;

/** The signed comment: the parsed Comment JSON, or the JSON of its own "Comment" string. */
function decodedComment(commentText: string): PyObject | undefined {
  try {
    const decoded = parsePythonJson(commentText);
    if (decoded.kind !== 'object') return undefined;
    const inner = decoded.entries.find(([k]) => k === 'Comment')?.[1];
    if (inner === undefined) return decoded;
    if (inner.kind !== 'string') return undefined;
    const parsed = parsePythonJson(inner.value);
    return parsed.kind === 'object' ? parsed : undefined;
  } catch {
    return undefined; // nai_sig.py would raise on it: no signature can be checked
  }
}

/**
 * True when the comment has a `signed_hash` key where nai_sig.py looks for it (the decoded
 * comment): a comment that only mentions the words, in a prompt or as another key's value, has
 * no signature, in a JPEG too. A comment that mentions them but cannot be parsed counts as having
 * one, which checkNovelAiSignature then calls invalid.
 */
export function carriesSignedHash(commentText: string): boolean {
  if (!hasSignedHash(commentText)) return false;
  const comment = decodedComment(commentText);
  return comment === undefined || comment.entries.some(([k]) => k === 'signed_hash');
}

/** True when the comment carries a signed_hash at all (a cheap test, before decoding pixels). */
export function hasSignedHash(commentText: string): boolean {
  return commentText.includes('signed_hash');
}

/**
 * The signed message: the image's RGB samples, row-major, without alpha (numpy's
 * `[:, :, :3].tobytes()`), then `text`. Written into one buffer: the samples are not first
 * copied out on their own and then again into the message (pixel-memory.ts counts one copy).
 */
function signedMessage(pixels: RawPixels, text: Buffer): Buffer {
  const n = pixels.width * pixels.height;
  const rgb = n * 3;
  const out = Buffer.allocUnsafe(rgb + text.length);
  const { data } = pixels;
  if (pixels.channels === 3) out.set(data.subarray(0, rgb));
  else {
    for (let i = 0, j = 0; i < rgb; i += 3, j += 4) {
      out[i] = data[j]!;
      out[i + 1] = data[j + 1]!;
      out[i + 2] = data[j + 2]!;
    }
  }
  text.copy(out, rgb);
  return out;
}

/**
 * The state of the signature in NovelAI comment JSON `commentText` over `pixels`: `absent` when
 * there is no signed_hash, `invalid` when it is there but does not verify (pixels or comment
 * changed, a malformed signature, a comment that cannot be parsed), `valid` when it verifies.
 * `publicKey` is NovelAI's unless a test injects its own.
 */
export function checkNovelAiSignature(pixels: RawPixels, commentText: string, publicKey: KeyObject = novelAiPublicKey()): SignatureState {
  if (!hasSignedHash(commentText)) return 'absent';
  const comment = decodedComment(commentText);
  if (!comment) return 'invalid';
  const at = comment.entries.findIndex(([k]) => k === 'signed_hash');
  if (at < 0) return 'absent'; // the words appear, but not as the comment's key
  const signed = comment.entries[at]![1];
  if (signed.kind !== 'string') return 'invalid';
  const signature = Buffer.from(signed.value, 'base64');
  if (signature.length !== 64) return 'invalid';
  const rest: PyValue = { kind: 'object', entries: comment.entries.filter((_, i) => i !== at) };
  const message = signedMessage(pixels, Buffer.from(pythonJsonDumps(rest), 'utf8'));
  try {
    return verify(null, message, publicKey, signature) ? 'valid' : 'invalid';
  } catch {
    return 'invalid';
  }
}
