// Minimal ANSI styling; a no-op when colour is off so the same code writes plain text.
export interface Style {
  bold(s: string): string;
  dim(s: string): string;
  green(s: string): string;
  yellow(s: string): string;
  red(s: string): string;
}

const wrap = (open: number, close: number) => (s: string) => `\u001b[${open}m${s}\u001b[${close}m`;
const plain = (s: string) => s;

export function makeStyle(color: boolean): Style {
  if (!color) return { bold: plain, dim: plain, green: plain, yellow: plain, red: plain };
  return { bold: wrap(1, 22), dim: wrap(2, 22), green: wrap(32, 39), yellow: wrap(33, 39), red: wrap(31, 39) };
}
