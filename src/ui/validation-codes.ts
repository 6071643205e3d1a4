// Plain words for c2pa-rs validation status codes (C2PA specification, "Validation"), for the
// human report: a short phrase for the one-line verdict and a sentence for `check --explain`.

export interface CodeWords {
  /** A few words for the verdict line, e.g. "the pixels changed after signing". */
  short: string;
  /** One sentence a person can act on. */
  sentence: string;
}

const CODES: Record<string, CodeWords> = {
  'claimSignature.mismatch': {
    short: 'the manifest changed after signing, or the signature is not genuine',
    sentence:
      'The signature does not match the claim it signs: the manifest was changed after it was signed, or the signature was not made with the certificate it carries.',
  },
  'claimSignature.missing': {
    short: 'the manifest has no signature',
    sentence: 'The claim has no signature, so nobody vouches for anything in the manifest.',
  },
  'claimSignature.outsideValidity': {
    short: 'signed outside the certificate validity period',
    sentence:
      "The signature was made outside the signing certificate's validity period (before it started or after it ended), as far as a trusted time stamp or the current time shows.",
  },
  'signingCredential.untrusted': {
    short: 'the signer is not on a trust list',
    sentence:
      'The signing certificate does not chain to any trust anchor in use (the C2PA Trust List that ships with provenance, anchors added with `provenance trust add`, or the file given to --trust-anchors), so nothing here vouches for who signed; on its own this does not make the credential invalid.',
  },
  'signingCredential.invalid': {
    short: 'the signing certificate is not valid for C2PA',
    sentence:
      'The signing certificate is malformed or not allowed to sign C2PA manifests (for example a wrong key usage or extended key usage).',
  },
  'signingCredential.revoked': {
    short: 'the signing certificate was revoked',
    sentence: "The signing certificate was revoked by its issuer, so signatures made with it can no longer be relied on.",
  },
  'signingCredential.expired': {
    // c2pa-rs says it for a certificate that has expired since, when no trusted time stamp shows
    // the signature came first (OpenAI's files of 2024-25 carry none), as for one used after it
    // expired: the short phrase must not read as the second alone.
    short: 'the signing certificate has expired and no trusted time stamp shows it signed while valid',
    sentence:
      'The signing certificate had expired when the manifest was signed, or has expired and no trusted time stamp proves the signature was made while it was still valid.',
  },
  'signingCredential.ocsp.revoked': {
    short: 'the signing certificate was revoked',
    sentence: "The OCSP response stored with the manifest says the signing certificate was revoked.",
  },
  'signingCredential.ocsp.unknown': {
    short: 'the certificate status is unknown',
    sentence: "The OCSP response stored with the manifest does not know the signing certificate's status.",
  },
  'timeStamp.mismatch': {
    short: 'the time stamp does not cover this signature',
    sentence: 'The time stamp does not match the signature it should cover: it was made for other data, or the signature changed.',
  },
  'timeStamp.untrusted': {
    short: 'the time-stamping authority is not trusted',
    sentence: "The time stamp's authority does not chain to a trusted anchor, so the signing time it states is not vouched for.",
  },
  'timeStamp.outsideValidity': {
    short: 'the time stamp is outside its certificate validity',
    sentence: "The time stamp was made outside the validity period of the time-stamping authority's certificate.",
  },
  'timeStamp.malformed': {
    short: 'the time stamp cannot be read',
    sentence: 'The time stamp is damaged or not a valid RFC 3161 token, so the signing time cannot be relied on.',
  },
  'assertion.hashedURI.mismatch': {
    short: 'an assertion changed after signing',
    sentence:
      "A statement inside the manifest (an assertion, such as its actions or metadata) was changed after signing: its hash no longer matches the one the claim recorded.",
  },
  'assertion.missing': {
    short: 'an assertion the claim lists is missing',
    sentence: 'The claim refers to an assertion that is not in the manifest: part of the manifest was removed.',
  },
  'assertion.dataHash.mismatch': {
    short: 'the pixels changed after signing',
    sentence:
      "The file's content changed after signing (for an image: the pixels; for audio: the samples): the hash of the bytes outside the manifest no longer matches the one recorded.",
  },
  'assertion.dataHash.malformed': {
    short: 'the content hash cannot be read',
    sentence: 'The assertion that binds the manifest to the file content is damaged, so edits to the content cannot be detected.',
  },
  'assertion.bmffHash.mismatch': {
    short: 'the audio or video data changed after signing',
    sentence:
      'The media data of this MP4/MOV/HEIF/AVIF file (video frames, audio samples or image data) changed after signing: its hash no longer matches the one recorded.',
  },
  'assertion.boxesHash.mismatch': {
    short: 'parts of the file changed after signing',
    sentence: 'Parts (boxes or chunks) of the file changed after signing: their hashes no longer match the ones recorded.',
  },
  'assertion.collectionHash.mismatch': {
    short: 'a file of the collection changed after signing',
    sentence: 'A file of the signed collection changed after signing: its hash no longer matches the one recorded.',
  },
  'assertion.action.ingredientMismatch': {
    short: 'an action names an ingredient that does not match',
    sentence: 'An action (such as c2pa.opened or c2pa.placed) refers to an ingredient that is missing or does not match the one recorded.',
  },
  'assertion.action.malformed': {
    short: 'an action is malformed',
    sentence: 'An action in the manifest breaks the C2PA rules (for example c2pa.created without a digital source type).',
  },
  'assertion.undeclared': {
    short: 'an assertion is not declared by the claim',
    sentence: 'The manifest contains an assertion that the signed claim does not list, so it is not covered by the signature.',
  },
  'assertion.multipleHardBindings': {
    short: 'more than one content binding',
    sentence: 'The manifest binds itself to the content more than once (several hash assertions), which the specification forbids.',
  },
  'assertion.inaccessible': {
    short: 'an assertion cannot be read',
    sentence: 'An assertion the claim refers to cannot be read (it is stored elsewhere or is damaged).',
  },
  'claim.missing': {
    short: 'the manifest has no claim',
    sentence: 'The manifest has no claim, so nothing in it is signed and nothing can be checked.',
  },
  'claim.multiple': {
    short: 'the manifest has more than one claim',
    sentence: 'The manifest holds more than one claim, which the specification forbids.',
  },
  'claim.hardBindings.missing': {
    short: 'the manifest is not bound to the content',
    sentence: "The claim has no hash of the file's content, so changes to the content could not be detected at all.",
  },
  'claim.malformed': {
    short: 'the claim is malformed',
    sentence: 'The claim is damaged or breaks the specification, so the manifest cannot be validated.',
  },
  'manifest.missing': {
    short: 'a manifest is missing',
    sentence: 'A manifest that is referred to (the active one or an ingredient’s) is not in the file.',
  },
  'manifest.multipleParents': {
    short: 'more than one parent ingredient',
    sentence: 'The manifest names more than one parentOf ingredient, which the specification forbids.',
  },
  'manifest.inaccessible': {
    short: 'a manifest cannot be read',
    sentence: 'A manifest that is referred to is stored elsewhere or is damaged, so it cannot be checked.',
  },
  'ingredient.hashedURI.mismatch': {
    short: "an ingredient's manifest changed",
    sentence: "An ingredient's manifest changed after the ingredient was recorded: its hash no longer matches.",
  },
  'ingredient.manifest.missing': {
    short: "an ingredient's manifest is missing",
    sentence: 'An ingredient claims to have a manifest, but the manifest is not in the file.',
  },
  'ingredient.manifest.mismatch': {
    short: "an ingredient's manifest does not match",
    sentence: "The manifest stored for an ingredient does not match the one the ingredient recorded.",
  },
  'algorithm.unsupported': {
    short: 'an unsupported algorithm',
    sentence: 'The manifest uses a hash or signature algorithm that this reader does not support, so that part cannot be checked.',
  },
  'general.error': {
    short: 'a validation error',
    sentence: 'c2pa-rs hit an error while validating the manifest; the credential cannot be relied on.',
  },
};

const FAMILIES: [string, string][] = [
  ['timeStamp.', 'A problem with the signature time stamp: the signing time it states cannot be relied on.'],
  ['signingCredential.', 'A problem with the signing certificate: who signed the manifest cannot be relied on.'],
  ['claimSignature.', 'A problem with the claim signature: the manifest may have been changed after signing.'],
  ['assertion.', 'A problem with a statement (assertion) in the manifest: it may have been changed or be malformed.'],
  ['ingredient.', 'A problem with an ingredient: what the file was made from cannot be relied on.'],
  ['claim.', 'A problem with the claim, the signed core of the manifest.'],
  ['manifest.', 'A problem with the manifest store structure.'],
];

/** Words for a code: its own where known, else its family's, else a generic sentence. */
export function explainCode(code: string): CodeWords {
  const known = CODES[code];
  if (known) return known;
  const family = FAMILIES.find(([prefix]) => code.startsWith(prefix));
  if (family) return { short: code, sentence: family[1] };
  return {
    short: code,
    sentence: `c2pa-rs reported "${code}", a code without a description here: see the validation status codes in the C2PA specification.`,
  };
}

export const KNOWN_CODES: readonly string[] = Object.keys(CODES);
