// The transport floor for `npm run bench:daemon`: a bare node:http server on 127.0.0.1 that reads
// each request body into one reused buffer and answers a small JSON object, nothing else. Under
// the same load as the daemon, its CPU per request is what receiving a body costs before any
// framework, authentication, decoding or detection. Prints `listening on http://HOST:PORT`.
import { createServer } from 'node:http';

const body = Buffer.allocUnsafeSlow(8 * 1024 * 1024);
const server = createServer((req, res) => {
  let length = 0;
  req.on('data', (chunk) => {
    if (length + chunk.length <= body.length) chunk.copy(body, length);
    length += chunk.length;
  });
  req.on('end', () => {
    const answer = JSON.stringify({ received: length });
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(answer) });
    res.end(answer);
  });
});
server.listen(0, '127.0.0.1', () => {
  console.log(`listening on http://127.0.0.1:${server.address().port}`);
});
process.on('SIGTERM', () => {
  server.closeAllConnections();
  server.close(() => process.exit(0));
});
