// Validation codes in plain words (check --explain).
import { describe, expect, it } from 'vitest';
import { explainCode, KNOWN_CODES } from '../src/ui/validation-codes.js';

describe('explainCode', () => {
  it.each([
    'claimSignature.mismatch',
    'assertion.dataHash.mismatch',
    'assertion.bmffHash.mismatch',
    'signingCredential.untrusted',
    'signingCredential.expired',
    'signingCredential.revoked',
    'timeStamp.mismatch',
    'timeStamp.untrusted',
    'timeStamp.outsideValidity',
    'assertion.hashedURI.mismatch',
    'claim.missing',
  ])('%s has its own sentence', (code) => {
    expect(KNOWN_CODES).toContain(code);
    const words = explainCode(code);
    expect(words.sentence).toMatch(/^[A-Z].{30,}\.$/);
    expect(words.short).not.toBe(code);
  });

  it('the data hash mismatch says the pixels changed after signing', () => {
    expect(explainCode('assertion.dataHash.mismatch').short).toBe('the pixels changed after signing');
  });

  it('signingCredential.expired names the missing time stamp: a certificate expired since signing is not one used after it expired', () => {
    // OpenAI's files of 2024-25 (no time stamp, a certificate that expired since) read so.
    expect(explainCode('signingCredential.expired').short).toBe('the signing certificate has expired and no trusted time stamp shows it signed while valid');
  });

  it('signingCredential.untrusted says it does not make the credential invalid', () => {
    expect(explainCode('signingCredential.untrusted').sentence).toContain('does not make the credential invalid');
  });

  it('an unknown code of a known family gets the family sentence', () => {
    expect(explainCode('timeStamp.somethingNew').sentence).toMatch(/time stamp/);
    expect(explainCode('signingCredential.ocsp.somethingNew').sentence).toMatch(/signing certificate/);
  });

  it('an unknown code gets a generic sentence naming it', () => {
    const words = explainCode('vendor.strange');
    expect(words.short).toBe('vendor.strange');
    expect(words.sentence).toContain('"vendor.strange"');
  });
});
