// Taking a request's bytes from the media budget (media/media-budget.ts), for every route that
// holds media: POST /v1/detect and the Verify page's POST /verify/detect.
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../contract/errors.js';
import type { MediaBudget, MediaHold } from '../media/media-budget.js';

/**
 * Takes `bytes` from `budget` for this request (503 server_busy after the budget's wait). A
 * client that hangs up while it waits leaves the queue at once rather than holding its place:
 * its socket's close aborts the wait. `holding`: what the request already holds, when it takes
 * more to finish (MediaBudget.acquire).
 */
export async function holdMedia(budget: MediaBudget, request: FastifyRequest, bytes: number, holding?: MediaHold | null): Promise<MediaHold> {
  const socket = request.raw.socket;
  const gone = new AbortController();
  const onClose = () => gone.abort(new ApiError('invalid_request', 'The client closed the connection while its request waited for memory.'));
  if (socket.destroyed) onClose();
  else socket.once('close', onClose);
  try {
    return await budget.acquire(bytes, gone.signal, holding);
  } finally {
    socket.off('close', onClose);
  }
}
