// What a terminal shows after some output: enough of a VT100 to replay what ink (log-update)
// and the CLI write, so tests can assert on the final screen instead of on escape sequences.
// Handles CR, LF, CSI n A/B (up, down), CSI n G (column), CSI 2K / K (erase line / to its end),
// CSI J (erase below), CSI ?25 h/l (cursor shown / hidden); other CSI sequences (colours,
// synchronised output) change nothing on a plain-text screen and are skipped.
// Also how the tests and `npm run bench` run a command on a real pseudo-terminal (util-linux script).
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

export interface Screen {
  lines: string[];
  cursorVisible: boolean;
}

const CSI = /^\x1b\[(\??)([\d;]*)([A-Za-z])/;

export function replay(output: string): Screen {
  const lines = [''];
  let row = 0;
  let col = 0;
  let cursorVisible = true;
  const down = (n: number) => {
    row += n;
    while (lines.length <= row) lines.push('');
  };
  for (let i = 0; i < output.length; i++) {
    const c = output[i]!;
    if (c === '\x1b') {
      const m = CSI.exec(output.slice(i));
      if (!m) continue;
      i += m[0].length - 1;
      const [, priv, args, cmd] = m as unknown as [string, string, string, string];
      const n = Number(args || 1);
      if (priv) {
        if (args === '25') cursorVisible = cmd === 'h';
      } else if (cmd === 'A') row = Math.max(0, row - n);
      else if (cmd === 'B') down(n);
      else if (cmd === 'G') col = n - 1;
      else if (cmd === 'K') lines[row] = args === '2' ? '' : lines[row]!.slice(0, col);
      else if (cmd === 'J') {
        lines.splice(row + 1);
        lines[row] = lines[row]!.slice(0, col);
      }
      continue;
    }
    if (c === '\r') col = 0;
    else if (c === '\n') {
      down(1);
      col = 0;
    } else {
      const line = lines[row]!.padEnd(col, ' ');
      lines[row] = line.slice(0, col) + c + line.slice(col + 1);
      col++;
    }
  }
  return { lines, cursorVisible };
}

/** util-linux `script`, which runs a command on a pseudo-terminal (Debian: bsdutils). */
export const HAS_SCRIPT = existsSync('/usr/bin/script');

/** `s` as one word for sh, quoted. */
export function shellQuote(s: string): string {
  return `'${s.replaceAll("'", "'\\''")}'`;
}

/** util-linux `script` running a shell command on a pseudo-terminal of 100 x 40, as [cmd, argv]. */
export function terminalCommand(command: string): [string, string[]] {
  return ['script', ['-qefc', `stty cols 100 rows 40; ${command}`, '/dev/null']];
}

export interface TerminalRun {
  code: number;
  /** Everything the terminal received, escape sequences included. */
  output: string;
}

/**
 * Runs a shell command on a real pseudo-terminal of 100 x 40 with `script`, without CI in its
 * environment (a CI variable turns the progress display off). `onOutput` sees the output so
 * far as it arrives and may type into the terminal (`type('\x03')` is Ctrl-C).
 */
export function runInTerminal(
  command: string,
  onOutput?: (output: string, type: (keys: string) => void) => void,
  env: NodeJS.ProcessEnv = {},
  /** Kill the terminal (SIGKILL) after this many ms and resolve with code -1 and the output so far. */
  limitMs?: number,
): Promise<TerminalRun> {
  const base = Object.fromEntries(Object.entries(process.env).filter(([key]) => key !== 'CI' && key !== 'CONTINUOUS_INTEGRATION'));
  const [cmd, argv] = terminalCommand(command);
  // Its own process group, so the bound below ends `script` and everything under it (the shell,
  // `timeout`, node): a process left behind would keep the test runner from exiting.
  const child = spawn(cmd, argv, {
    env: { ...base, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
    detached: true,
  });
  let output = '';
  // Keys typed after the terminal has closed go nowhere (no EPIPE error for the test to catch).
  child.stdin.on('error', () => {});
  const type = (keys: string) => {
    if (child.exitCode === null && child.stdin.writable) child.stdin.write(keys);
  };
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString('utf8');
    onOutput?.(output, type);
  });
  const killGroup = () => {
    try {
      process.kill(-child.pid!, 'SIGKILL');
    } catch {
      // already gone
    }
  };
  const limit = limitMs === undefined ? undefined : setTimeout(killGroup, limitMs);
  return new Promise((resolve, reject) => {
    let settled = false;
    const settle = (code: number | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(limit);
      killGroup();
      resolve({ code: code ?? -1, output });
    };
    child.on('error', reject);
    child.on('close', settle);
    // `close` waits for stdout to close; should anything still hold it once `script` has
    // exited, the run ends a second later with what arrived.
    child.on('exit', (code) => setTimeout(() => settle(code), 1000).unref());
  });
}
