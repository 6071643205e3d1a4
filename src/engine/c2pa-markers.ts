// A file that holds none of these byte strings cannot carry a C2PA manifest: an embedded one
// lives in a JUMBF box ("jumb") labelled "c2pa", and a remote one is referenced from XMP's
// dcterms:provenance. Such files skip c2pa-rs entirely (the wasm is never compiled for them);
// test/c2pa-fast-path.test.ts proves on the corpus that this changes no result.
const MARKERS = ['jumb', 'c2pa', 'provenance'].map((s) => Buffer.from(s, 'latin1'));

export function hasC2paMarker(bytes: Uint8Array): boolean {
  const buf = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return MARKERS.some((marker) => buf.indexOf(marker) !== -1);
}
