// Text taken from a file (a generator's prompt, a model name) reaches the terminal only through
// here: a control character in it could move the cursor, rewrite earlier lines or set the
// window title (ESC sequences), so each one is shown as a visible escape instead.

/** `s` on one line with every control and format character escaped (`\x1b`, `\u202e`). */
export function printable(s: string): string {
  return s.replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, visibleEscape);
}

/** One control or format character as the text of its escape (`\x1b`, `\u202e`). */
export function visibleEscape(c: string): string {
  const code = c.codePointAt(0)!;
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** `s` cut to `max` characters (whole code points), with an ellipsis when cut. */
export function shortened(s: string, max: number): string {
  const chars = [...s];
  return chars.length <= max ? s : `${chars.slice(0, max - 1).join('')}…`;
}
