// fastify's last-resort error path: an error raised after the daemon's error handler has already
// answered (here by an onSend hook) is serialised by the route's serializer from
// `Object.create(error, ...)`. With plain JSON.stringify that body was `{}` (seen once in CI
// while PostgreSQL restarted under load); every such answer must still be a CONTRACT body.
import Fastify from 'fastify';
import { afterAll, describe, expect, it } from 'vitest';
import { installErrorHandling, serializeResponse } from '../../src/daemon/http/error-handler.js';
import { ApiError, INTERNAL_ERROR_MESSAGE } from '../../src/daemon/contract/errors.js';
import { expectError } from './helpers.js';

const app = Fastify();
installErrorHandling(app);
const errorBody = { type: 'object', properties: { error: { type: 'object' } } };
// As on POST /v1/detect, every status it answers has a response schema (so a serializer).
const schema = { response: { 401: errorBody, 500: errorBody } };
// The handler fails; so does the onSend hook, but only on the error answer.
app.get('/twice', { schema, onSend: async (_req, reply) => { if (reply.statusCode >= 400) throw new Error('onSend failed too'); } }, async () => {
  throw new Error('handler failed');
});
app.get('/auth-then-fail', { schema, onSend: async (_req, reply) => { if (reply.statusCode >= 400) throw new TypeError('x is undefined'); } }, async () => {
  throw new ApiError('authentication_error', 'The API key is unknown or has been revoked; create a new key.');
});
afterAll(() => app.close());

describe('an error after the error handler answered', () => {
  it('still leaves as a CONTRACT body of its status, never {}', async () => {
    const failed = await app.inject({ method: 'GET', url: '/twice' });
    expectError(failed, 500, 'internal_error');
    expect(failed.json().error.message).toBe(INTERNAL_ERROR_MESSAGE);
    // fastify keeps the status the first answer had.
    expectError(await app.inject({ method: 'GET', url: '/auth-then-fail' }), 401, 'authentication_error');
  });

  it('serializeResponse: data as it is; an ApiError as its body; any other Error by its status', () => {
    expect(serializeResponse({ a: 1, matches: [] })).toBe('{"a":1,"matches":[]}');
    const api = new ApiError('not_found', 'No upload upl_x for this account.', 'upload');
    expect(JSON.parse(serializeResponse(Object.create(api)))).toEqual(api.body());
    const withStatus = (status: number) => JSON.parse(serializeResponse(Object.create(new Error('x'), { statusCode: { value: status } })));
    expect(withStatus(500).error).toEqual({ type: 'internal_error', message: INTERNAL_ERROR_MESSAGE });
    expect(withStatus(404).error.type).toBe('not_found');
    expect(withStatus(413).error.type).toBe('media_too_large');
    expect(JSON.parse(serializeResponse(new Error('no status'))).error.type).toBe('internal_error');
  });
});
