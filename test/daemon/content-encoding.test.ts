// refuseEncodedBodies on its own (issue 18, "Tests that pin behaviour"): which requests it lets
// through and the exact 415 it throws, given the method, headers and route flag fastify hands a
// preParsing hook. The same refusals through the daemon are in test/daemon/transport-errors.test.ts.
import type { FastifyRequest } from 'fastify';
import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/daemon/contract/errors.js';
import { refuseEncodedBodies } from '../../src/daemon/http/content-encoding.js';

/** What the hook reads of a request: its method, its headers (as Node gives them: lower-case names), whether no route matched. */
function request(method: string, headers: Record<string, string>, is404 = false): FastifyRequest {
  return { method, headers, is404 } as unknown as FastifyRequest;
}

/** The ApiError the hook throws, or undefined when it lets the request through. */
async function refusal(method: string, headers: Record<string, string>, is404 = false): Promise<ApiError | undefined> {
  try {
    await refuseEncodedBodies(request(method, headers, is404));
    return undefined;
  } catch (e) {
    expect(e).toBeInstanceOf(ApiError);
    return e as ApiError;
  }
}

const message = (coding: string) => `The body is sent with Content-Encoding "${coding}"; send it uncompressed (without Content-Encoding).`;

describe('refuseEncodedBodies', () => {
  it('a body with a coding on POST, PUT, PATCH or DELETE: 415 unsupported_content_type naming the coding as sent', async () => {
    for (const method of ['POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']) {
      const e = await refusal(method, { 'content-encoding': 'gzip', 'content-length': '5' });
      expect(e?.type, method).toBe('unsupported_content_type');
      expect(e?.statusCode).toBe(415);
      expect(e?.message).toBe(message('gzip'));
    }
    // Compared trimmed and in any case, quoted as sent.
    expect((await refusal('POST', { 'content-encoding': ' GZip ', 'content-length': '5' }))?.message).toBe(message(' GZip '));
    expect((await refusal('POST', { 'content-encoding': 'gzip, identity', 'content-length': '5' }))?.message).toBe(message('gzip, identity'));
  });

  it('the coding is quoted up to 40 characters', async () => {
    expect((await refusal('POST', { 'content-encoding': 'x'.repeat(40), 'content-length': '5' }))?.message).toBe(message('x'.repeat(40)));
    expect((await refusal('POST', { 'content-encoding': `${'y'.repeat(40)}z`, 'content-length': '5' }))?.message).toBe(message('y'.repeat(40)));
  });

  it('GET and HEAD pass whatever they carry (fastify reads no body on them); so does a request no route takes', async () => {
    const encoded = { 'content-encoding': 'gzip', 'content-length': '5' };
    expect(await refusal('GET', encoded)).toBeUndefined();
    expect(await refusal('HEAD', encoded)).toBeUndefined();
    expect(await refusal('GET', { 'content-encoding': 'gzip', 'transfer-encoding': 'chunked' })).toBeUndefined();
    expect(await refusal('POST', encoded, true)).toBeUndefined();
  });

  it('no Content-Encoding, or no body (no length and no chunks, or Content-Length: 0): passes', async () => {
    expect(await refusal('POST', { 'content-length': '5' })).toBeUndefined();
    expect(await refusal('POST', { 'content-encoding': 'gzip' })).toBeUndefined();
    expect(await refusal('POST', { 'content-encoding': 'gzip', 'content-length': '0' })).toBeUndefined();
    expect((await refusal('POST', { 'content-encoding': 'gzip', 'content-length': '1' }))?.statusCode).toBe(415);
  });

  it('a chunked body is a body whatever its Content-Length says', async () => {
    expect((await refusal('POST', { 'content-encoding': 'gzip', 'transfer-encoding': 'chunked' }))?.statusCode).toBe(415);
    expect((await refusal('POST', { 'content-encoding': 'deflate', 'transfer-encoding': 'chunked', 'content-length': '0' }))?.statusCode).toBe(415);
  });

  it('identity or an empty coding, in any case and with spaces around: passes', async () => {
    for (const coding of ['identity', 'IDENTITY', ' identity ', '\tIdentity\t', '', '   ']) {
      expect(await refusal('POST', { 'content-encoding': coding, 'content-length': '5' }), JSON.stringify(coding)).toBeUndefined();
    }
  });
});
