// A bare HTTP/1.1 client on node:net, for what fetch cannot do: declare a huge Content-Length
// and send only a little, or keep streaming while watching for an early answer.
import { connect } from 'node:net';

export interface EarlyAnswer {
  status: number;
  head: string;
  body: string;
  /** Body bytes the client had written when the answer arrived. */
  sentWhenAnswered: number;
  /** The server closed the connection. */
  closed: boolean;
}

/**
 * Sends `headers`, then body chunks from `chunk()` (up to `total` bytes) as fast as the socket
 * takes them, stopping as soon as an answer arrives. Resolves with the answer.
 */
export function sendUntilAnswered(
  port: number,
  requestHead: string,
  chunk: (i: number) => Buffer | undefined,
  options: { chunked?: boolean } = {},
): Promise<EarlyAnswer> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host: '127.0.0.1', port });
    let sent = 0;
    let answered = false;
    let response = '';
    let sentWhenAnswered = 0;
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer; sent ${sent} bytes`));
    }, 20_000);
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      const [head = '', body = ''] = response.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), head, body, sentWhenAnswered, closed });
    };
    socket.on('data', (d) => {
      if (!answered) {
        answered = true;
        sentWhenAnswered = sent;
      }
      response += d.toString('latin1');
    });
    socket.on('close', () => finish(true));
    socket.on('error', () => {
      /* EPIPE/ECONNRESET after the server closed: expected */
    });
    socket.write(requestHead, async () => {
      for (let i = 0; !answered && !socket.destroyed; i++) {
        const c = chunk(i);
        if (!c) {
          if (options.chunked) socket.write('0\r\n\r\n');
          break;
        }
        const framed = options.chunked ? Buffer.concat([Buffer.from(`${c.length.toString(16)}\r\n`), c, Buffer.from('\r\n')]) : c;
        const ok = socket.write(framed);
        sent += c.length;
        // Whichever comes first removes both: a 'close' listener left behind per drain was the
        // MaxListenersExceededWarning `npm test` printed (issue 24).
        if (!ok) {
          await new Promise<void>((r) => {
            const done = () => {
              socket.off('drain', done).off('close', done);
              r();
            };
            socket.once('drain', done).once('close', done);
          });
        }
        else await new Promise((r) => setImmediate(r));
      }
      // Give the server a moment to answer what was sent, then let 'close' or the answer finish.
      setTimeout(() => {
        if (answered) socket.end();
      }, 200);
    });
  });
}

export function head(method: string, path: string, headers: Record<string, string | number>): string {
  return `${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${Object.entries(headers)
    .map(([k, v]) => `${k}: ${v}`)
    .join('\r\n')}\r\n\r\n`;
}
