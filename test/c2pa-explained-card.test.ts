// Snapshot of the human report's C2PA card (issue 7), colour off, for the issue-7 fixtures.
// Masked: the sha256 and size (signing uses random salts and UUIDs) and signing times.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { detect } from '../src/engine/detect.js';
import { readHints } from '../src/media/xmp-hints.js';
import { makeStyle } from '../src/ui/style.js';
import { formatResult, type ReportOptions } from '../src/ui/text-report.js';
import { tamper } from './fixtures/make.js';
import { CORPUS_FILES, HAS_CORPUS } from './helpers/corpus.js';
import { makeExplainedSet, type ExplainedSet } from './helpers/explained.js';

let dir: string;
let set: ExplainedSet;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'prov-card-'));
  set = await makeExplainedSet(dir);
}, 120_000);
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const plain = makeStyle(false);

function mask(text: string): string {
  return text
    .replace(/sha256 [0-9a-f]{64}/g, 'sha256 <sha256>')
    .replace(/ · \d+(\.\d)? (B|KiB|MiB) · /g, ' · <size> · ')
    .replace(/\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC/g, '<time> UTC');
}

async function card(name: string, options: ReportOptions & { anchors?: string } = {}, bytes = set.bytes[name]!): Promise<string> {
  const result = await detect(bytes, { checks: ['c2pa'], trustAnchorsPem: options.anchors });
  const hints = await readHints(bytes);
  return mask(formatResult(`${name}.${set.type[name] === 'image/png' ? 'png' : 'jpg'}`, result, plain, { trustAnchors: Boolean(options.anchors), hints, ...options }));
}

describe('the C2PA card', () => {
  it('AI-generated (trainedAlgorithmicMedia), time-stamped, no anchors', async () => {
    expect(await card('ai-v2')).toMatchInlineSnapshot(`
      "ai-v2.jpg
        AI-generated: provenance-fixtures/1.0, as claimed (signed C2PA manifest whose signer is not on the trust list, so its names are unverified)
        image/jpeg · <size> · sha256 <sha256>
        c2pa                 found: signer claims to be Provenance Test Signer (unverified), made with provenance-fixtures/1.0
                             AI-generated   yes: trainedAlgorithmicMedia (made by a generative AI model), named by its c2pa.created action
                             C2PA signals   Contains Fully GenAI Media; Contains ambiguous actions (C2PA Asset Signals Rubric (Local) 1.0)
                             signed by      Provenance Test Signer (certificate: provenance fixtures)
                             trust          not checked: no trust list in use, so "Provenance Test Signer" is a name the signer gave itself (anyone can make a certificate with any name)
                             signed at      <time> UTC
                             app or device  provenance-fixtures/1.0
                             actions        c2pa.created (trainedAlgorithmicMedia)
                             ingredients    none
                             validation     credential intact (hashes and signature match); signer not checked against a trust list (no trust anchors configured)
                             assertions     c2pa.actions.v2

      "
    `);
  });

  it('algorithmicMedia: no, and says what the type means (issue 18)', async () => {
    const text = await card('algorithmic');
    expect(text).toContain('AI-generated   no: algorithmicMedia (made by an algorithm, not by a trained model), named by its c2pa.created action\n');
    expect(text).not.toContain('yes');
  });

  it('digitalCapture, signer trusted through the test CA', async () => {
    expect(await card('capture', { anchors: set.pki.rootPem })).toMatchInlineSnapshot(`
      "capture.jpg
        Captured with provenance-fixtures/1.0 (C2PA manifest signed by trusted signer Provenance Test Signer)
        image/jpeg · <size> · sha256 <sha256>
        c2pa                 found: signed by Provenance Test Signer (trusted), made with provenance-fixtures/1.0
                             AI-generated   no: digitalCapture (captured by a camera or recorder), named by its c2pa.created action
                             C2PA signals   Contains Captured Media; Contains ambiguous actions (C2PA Asset Signals Rubric (Local) 1.0)
                             signed by      Provenance Test Signer (certificate: provenance fixtures)
                             trust          trusted: the certificate is on the trust list in use (the C2PA Trust List, or an anchor you added)
                             signed at      <time> UTC
                             app or device  provenance-fixtures/1.0
                             actions        c2pa.created (digitalCapture)
                             ingredients    none
                             validation     credential intact, signer chains to a trusted anchor
                             assertions     c2pa.actions.v2

      "
    `);
  });

  it('anchors configured but the signer chains to none of them', async () => {
    expect(await card('capture', { anchors: set.otherPki.rootPem })).toMatchInlineSnapshot(`
      "capture.jpg
        No AI marker found; captured, as claimed: provenance-fixtures/1.0, a digitalCapture (signed C2PA manifest whose signer is not on the trust list, so its names are unverified)
        image/jpeg · <size> · sha256 <sha256>
        c2pa                 found: signer claims to be Provenance Test Signer (unverified), made with provenance-fixtures/1.0
                             AI-generated   no: digitalCapture (captured by a camera or recorder), named by its c2pa.created action
                             C2PA signals   Contains Captured Media; Contains ambiguous actions (C2PA Asset Signals Rubric (Local) 1.0)
                             signed by      Provenance Test Signer (certificate: provenance fixtures)
                             trust          NOT trusted: the certificate is not on the trust list, so "Provenance Test Signer" is a name the signer gave itself (anyone can make a certificate with any name)
                             signed at      <time> UTC
                             app or device  provenance-fixtures/1.0
                             actions        c2pa.created (digitalCapture)
                             ingredients    none
                             validation     credential intact (hashes and signature match); signer is NOT on the trust lists in use (signingCredential.untrusted)
                             assertions     c2pa.actions.v2

      "
    `);
  });

  it('compositeWithTrainedAlgorithmicMedia in a PNG', async () => {
    expect(await card('composite')).toMatchInlineSnapshot(`
      "composite.png
        Contains AI-generated content: provenance-fixtures/1.0 composite with AI-generated parts, as claimed (signed C2PA manifest whose signer is not on the trust list, so its names are unverified)
        image/png · <size> · sha256 <sha256>
        c2pa                 found: signer claims to be Provenance Test Signer (unverified), made with provenance-fixtures/1.0
                             AI-generated   yes: compositeWithTrainedAlgorithmicMedia (a composite that includes generative AI output), named by its c2pa.created action
                             C2PA signals   Contains Partly GenAI Creation; Contains ambiguous actions (C2PA Asset Signals Rubric (Local) 1.0)
                             signed by      Provenance Test Signer (certificate: provenance fixtures)
                             trust          not checked: no trust list in use, so "Provenance Test Signer" is a name the signer gave itself (anyone can make a certificate with any name)
                             signed at      <time> UTC
                             app or device  provenance-fixtures/1.0
                             actions        c2pa.created (compositeWithTrainedAlgorithmicMedia)
                             ingredients    none
                             validation     credential intact (hashes and signature match); signer not checked against a trust list (no trust anchors configured)
                             assertions     c2pa.actions.v2

      "
    `);
  });

  it('no source type named', async () => {
    expect(await card('none')).toMatchInlineSnapshot(`
      "none.jpg
        No AI marker found (that proves nothing)
        image/jpeg · <size> · sha256 <sha256>
        c2pa                 found: signer claims to be Provenance Test Signer (unverified), made with provenance-fixtures/1.0
                             AI-generated   not stated: the manifest names no digital source type
                             C2PA signals   Contains ambiguous actions (C2PA Asset Signals Rubric (Local) 1.0)
                             signed by      Provenance Test Signer (certificate: provenance fixtures)
                             trust          not checked: no trust list in use, so "Provenance Test Signer" is a name the signer gave itself (anyone can make a certificate with any name)
                             signed at      not stated (no time stamp: when it was signed is unknown)
                             app or device  provenance-fixtures/1.0
                             actions        c2pa.created
                             ingredients    none
                             validation     credential intact (hashes and signature match); signer not checked against a trust list (no trust anchors configured)
                             assertions     c2pa.actions.v2

      "
    `);
  });

  it('the legacy generative-AI assertion', async () => {
    expect(await card('legacy')).toMatchInlineSnapshot(`
      "legacy.jpg
        AI-generated: provenance-fixtures/1.0, as claimed (signed C2PA manifest whose signer is not on the trust list, so its names are unverified)
        image/jpeg · <size> · sha256 <sha256>
        c2pa                 found: signer claims to be Provenance Test Signer (unverified), made with provenance-fixtures/1.0
                             AI-generated   yes: the manifest carries the legacy com.adobe.generative-ai assertion
                             C2PA signals   Contains ambiguous actions (C2PA Asset Signals Rubric (Local) 1.0)
                             signed by      Provenance Test Signer (certificate: provenance fixtures)
                             trust          not checked: no trust list in use, so "Provenance Test Signer" is a name the signer gave itself (anyone can make a certificate with any name)
                             signed at      not stated (no time stamp: when it was signed is unknown)
                             app or device  provenance-fixtures/1.0
                             actions        c2pa.created
                             ingredients    none
                             validation     credential intact (hashes and signature match); signer not checked against a trust list (no trust anchors configured)
                             assertions     c2pa.actions.v2, com.adobe.generative-ai

      "
    `);
  });

  it('an AI edit of a photo', async () => {
    expect(await card('edited')).toMatchInlineSnapshot(`
      "edited.jpg
        Contains AI-generated content: provenance-fixtures/1.0 edited with generative AI, as claimed (signed C2PA manifest whose signer is not on the trust list, so its names are unverified)
        image/jpeg · <size> · sha256 <sha256>
        c2pa                 found: signer claims to be Provenance Test Signer (unverified), made with provenance-fixtures/1.0
                             AI-generated   yes: compositeWithTrainedAlgorithmicMedia (a composite that includes generative AI output), named by its c2pa.edited action
                             C2PA signals   Contains Captured Media; Contains ambiguous actions; Contains Perceptible GenAI Transformations (C2PA Asset Signals Rubric (Local) 1.0)
                             signed by      Provenance Test Signer (certificate: provenance fixtures)
                             trust          not checked: no trust list in use, so "Provenance Test Signer" is a name the signer gave itself (anyone can make a certificate with any name)
                             signed at      not stated (no time stamp: when it was signed is unknown)
                             app or device  provenance-fixtures/1.0
                             actions        c2pa.created (digitalCapture), c2pa.edited (compositeWithTrainedAlgorithmicMedia)
                             ingredients    none
                             validation     credential intact (hashes and signature match); signer not checked against a trust list (no trust anchors configured)
                             assertions     c2pa.actions.v2

      "
    `);
  });

  it('ingredients as a tree', async () => {
    expect(await card('ingredients')).toMatchInlineSnapshot(`
      "ingredients.jpg
        Contains AI-generated content: provenance-fixtures/1.0 edit of an AI-made picture, as claimed (signed C2PA manifest whose signer is not on the trust list, so its names are unverified)
        image/jpeg · <size> · sha256 <sha256>
        c2pa                 found: signer claims to be Provenance Test Signer (unverified), made with provenance-fixtures/1.0
                             AI-generated   contains AI-generated content: its parentOf ingredient "parent.jpg" is AI-generated (trainedAlgorithmicMedia)
                             C2PA signals   Contains ambiguous actions (C2PA Asset Signals Rubric (Local) 1.0)
                             signed by      Provenance Test Signer (certificate: provenance fixtures)
                             trust          not checked: no trust list in use, so "Provenance Test Signer" is a name the signer gave itself (anyone can make a certificate with any name)
                             signed at      <time> UTC
                             app or device  provenance-fixtures/1.0
                             actions        c2pa.opened, c2pa.placed
                             ingredients    2
                                            ├─ parent.jpg · parentOf · image/jpeg · AI-generated (trainedAlgorithmicMedia) · signed by Provenance Test Signer · credential intact
                                            └─ logo.png · componentOf · image/png · no credential
                             validation     credential intact (hashes and signature match); signer not checked against a trust list (no trust anchors configured)
                             assertions     c2pa.actions.v2

      "
    `);
  });

  it('a deep ingredient tree is cut at three levels', async () => {
    expect(await card('deep')).toMatchInlineSnapshot(`
      "deep.jpg
        Contains AI-generated content: provenance-fixtures/1.0 edit of an AI-made picture, as claimed (signed C2PA manifest whose signer is not on the trust list, so its names are unverified)
        image/jpeg · <size> · sha256 <sha256>
        c2pa                 found: signer claims to be Provenance Test Signer (unverified), made with provenance-fixtures/1.0
                             AI-generated   contains AI-generated content: its parentOf ingredient "gen2.jpg" is AI-generated (compositeWithTrainedAlgorithmicMedia)
                             C2PA signals   Contains ambiguous actions (C2PA Asset Signals Rubric (Local) 1.0)
                             signed by      Provenance Test Signer (certificate: provenance fixtures)
                             trust          not checked: no trust list in use, so "Provenance Test Signer" is a name the signer gave itself (anyone can make a certificate with any name)
                             signed at      not stated (no time stamp: when it was signed is unknown)
                             app or device  provenance-fixtures/1.0
                             actions        c2pa.opened
                             ingredients    1
                                            └─ gen3.jpg · parentOf · image/jpeg · signed by Provenance Test Signer · credential intact
                                               └─ gen2.jpg · parentOf · image/jpeg · AI-generated (compositeWithTrainedAlgorithmicMedia) · signed by Provenance Test Signer · credential intact
                                                  └─ gen1.jpg · parentOf · image/jpeg · signed by Provenance Test Signer · credential intact
                                                     └─ 1 more ingredient (not shown)
                             validation     credential intact (hashes and signature match); signer not checked against a trust list (no trust anchors configured)
                             assertions     c2pa.actions.v2

      "
    `);
  });

  it('a tampered file with --explain', async () => {
    expect(await card('capture', { explain: true }, tamper(set.bytes.capture!, 'image/jpeg'))).toMatchInlineSnapshot(`
      "capture.jpg
        No AI marker found (that proves nothing)
        image/jpeg · <size> · sha256 <sha256>
        c2pa                 found: signer claims to be Provenance Test Signer (unverified), made with provenance-fixtures/1.0
                             AI-generated   no: digitalCapture (captured by a camera or recorder), named by its c2pa.created action
                             C2PA signals   Contains Captured Media; Contains ambiguous actions (C2PA Asset Signals Rubric (Local) 1.0)
                             signed by      Provenance Test Signer (certificate: provenance fixtures)
                             trust          not trusted: the credential is INVALID, so "Provenance Test Signer" is a name the signer gave itself and nothing in the manifest is vouched for
                             signed at      <time> UTC
                             app or device  provenance-fixtures/1.0
                             actions        c2pa.created (digitalCapture)
                             ingredients    none
                             validation     credential INVALID: the pixels changed after signing (assertion.dataHash.mismatch)
                             why            assertion.dataHash.mismatch: The file's content changed after signing (for an image: the pixels; for audio: the samples): the hash of the bytes outside the manifest no longer matches the one recorded.
                                              (c2pa-rs: asset hash error, name: jumbf manifest, error: hash verification( Hashes do not match ))
                                            signingCredential.untrusted: The signing certificate does not chain to any trust anchor in use (the C2PA Trust List that ships with provenance, anchors added with \`provenance trust add\`, or the file given to --trust-anchors), so nothing here vouches for who signed; on its own this does not make the credential invalid.
                                              (c2pa-rs: signing certificate untrusted)
                             assertions     c2pa.actions.v2

      "
    `);
  });

  it('--explain on an intact, trusted file', async () => {
    expect(await card('capture', { explain: true, anchors: set.pki.rootPem })).toMatchInlineSnapshot(`
      "capture.jpg
        Captured with provenance-fixtures/1.0 (C2PA manifest signed by trusted signer Provenance Test Signer)
        image/jpeg · <size> · sha256 <sha256>
        c2pa                 found: signed by Provenance Test Signer (trusted), made with provenance-fixtures/1.0
                             AI-generated   no: digitalCapture (captured by a camera or recorder), named by its c2pa.created action
                             C2PA signals   Contains Captured Media; Contains ambiguous actions (C2PA Asset Signals Rubric (Local) 1.0)
                             signed by      Provenance Test Signer (certificate: provenance fixtures)
                             trust          trusted: the certificate is on the trust list in use (the C2PA Trust List, or an anchor you added)
                             signed at      <time> UTC
                             app or device  provenance-fixtures/1.0
                             actions        c2pa.created (digitalCapture)
                             ingredients    none
                             validation     credential intact, signer chains to a trusted anchor
                             why            no validation codes: every check passed and the signer chains to a trusted anchor
                             assertions     c2pa.actions.v2

      "
    `);
  });

  it('a file with only the XMP field', async () => {
    expect(await card('xmp-png')).toMatchInlineSnapshot(`
      "xmp-png.png
        Contains AI-generated content: composite with AI-generated parts (unsigned IPTC source type in the XMP)
        image/png · <size> · sha256 <sha256>
        c2pa                 not found
        xmp hint             says AI-generated: IPTC digital source type compositeWithTrainedAlgorithmicMedia (a composite that includes generative AI output)
                             unsigned XMP metadata (Iptc4xmpExt:DigitalSourceType): anyone can write, edit or remove it

      "
    `);
  });

  it('a signed capture whose XMP says AI', async () => {
    expect(await card('xmp-signed')).toMatchInlineSnapshot(`
      "xmp-signed.jpg
        AI-generated (unsigned IPTC source type in the XMP)
        Checks disagree: c2pa (signed C2PA manifest whose signer is not on the trust list, so its names are unverified: provenance-fixtures/1.0, a digitalCapture) says not AI-made, but generator_metadata (unsigned IPTC source type in the XMP) says AI-made
        image/jpeg · <size> · sha256 <sha256>
        c2pa                 found: signer claims to be Provenance Test Signer (unverified), made with provenance-fixtures/1.0
                             AI-generated   no: digitalCapture (captured by a camera or recorder), named by its c2pa.created action
                             C2PA signals   Contains Captured Media; Contains ambiguous actions (C2PA Asset Signals Rubric (Local) 1.0)
                             signed by      Provenance Test Signer (certificate: provenance fixtures)
                             trust          not checked: no trust list in use, so "Provenance Test Signer" is a name the signer gave itself (anyone can make a certificate with any name)
                             signed at      not stated (no time stamp: when it was signed is unknown)
                             app or device  provenance-fixtures/1.0
                             actions        c2pa.created (digitalCapture)
                             ingredients    none
                             validation     credential intact (hashes and signature match); signer not checked against a trust list (no trust anchors configured)
                             assertions     c2pa.actions.v2
        xmp hint             says AI-generated: IPTC digital source type trainedAlgorithmicMedia (made by a generative AI model)
                             unsigned XMP metadata (Iptc4xmpExt:DigitalSourceType): anyone can write, edit or remove it

      "
    `);
  });

  it('a result that crossed a process boundary (remote, worker): the card from the claims alone', async () => {
    const result = structuredClone(await detect(set.bytes.ingredients!, { checks: ['c2pa'] }));
    expect(mask(formatResult('remote.jpg', result, plain))).toMatchInlineSnapshot(`
      "remote.jpg
        No AI marker found (that proves nothing)
        image/jpeg · <size> · sha256 <sha256>
        c2pa                 found: signer claims to be Provenance Test Signer (unverified), made with provenance-fixtures/1.0
                             AI-generated   not stated: the manifest names no digital source type
                             signed by      Provenance Test Signer
                             trust          NOT trusted: the certificate is not on the trust list, so "Provenance Test Signer" is a name the signer gave itself (anyone can make a certificate with any name)
                             signed at      <time> UTC
                             app or device  provenance-fixtures/1.0
                             ingredients    2
                             validation     credential intact (hashes and signature match); signer not checked against a trust list
                             assertions     c2pa.actions.v2

      "
    `);
  });

  it.skipIf(!HAS_CORPUS)('corpus C.jpg (a real c2pa-rs test file), with --explain', async () => {
    const bytes = readFileSync(join(CORPUS_FILES, 'C.jpg'));
    const result = await detect(bytes);
    expect(formatResult('C.jpg', result, plain, { explain: true, trustAnchors: false })).toMatchInlineSnapshot(`
      "C.jpg
        No AI marker found (that proves nothing)
        image/jpeg · 129 KiB · sha256 a2d14755db55de67a47c04090340d8266e892367be4104a45626d7a6fa6e9ffd
        c2pa                 found: signer claims to be C2PA Test Signing Cert (unverified), made with make_test_images/0.33.1 c2pa-rs/0.33.1
                             AI-generated   no: algorithmicMedia (made by an algorithm, not by a trained model), named by its c2pa.created action
                             C2PA signals   Contains ambiguous actions (C2PA Asset Signals Rubric (Local) 1.0)
                             signed by      C2PA Test Signing Cert (certificate: C2PA Signer)
                             trust          not checked: no trust list in use, so "C2PA Test Signing Cert" is a name the signer gave itself (anyone can make a certificate with any name)
                             signed at      2024-08-06 21:53:37 UTC
                             app or device  Make Test Images 0.33.1 (claim generator: make_test_images/0.33.1 c2pa-rs/0.33.1)
                             actions        c2pa.created (algorithmicMedia)
                             ingredients    none
                             validation     credential intact (hashes and signature match); signer not checked against a trust list (no trust anchors configured)
                             why            signingCredential.untrusted: The signing certificate does not chain to any trust anchor in use (the C2PA Trust List that ships with provenance, anchors added with \`provenance trust add\`, or the file given to --trust-anchors), so nothing here vouches for who signed; on its own this does not make the credential invalid.
                                              (c2pa-rs: signing certificate untrusted)
                             assertions     stds.schema-org.CreativeWork, c2pa.actions
        camera_reference     not found
        generator_metadata   not found
        invisible_watermark  not found
        planned              watermark_a, watermark_b, open_content_seal: not available yet

      "
    `);
  });
});
