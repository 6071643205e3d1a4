// Text into HTML: every string that came from a file or an API's answer (a prompt, a title, a
// signer's name, a path, a media type) goes through `esc` or `attr` before it reaches markup.
// Nothing from a file is ever placed in a tag name, an attribute name, a URL, a style or a
// script. Control and format characters (ESC, U+202E, which reorders the text after it) are
// shown as visible escapes, as the terminal shows them (ui/terminal-text.ts); tab and line
// breaks stay, being only white space to HTML.
import { visibleEscape } from '../ui/terminal-text.js';

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** `s` as HTML text or a quoted attribute value. Lone surrogates become U+FFFD (valid UTF-8 out). */
export function esc(s: string | number | undefined | null): string {
  if (s === undefined || s === null) return '';
  return String(s)
    .replace(/[&<>"']/g, (c) => ENTITIES[c]!)
    .replace(/[\p{Cc}\p{Cf}\u2028\u2029]/gu, (c) => (c === '\t' || c === '\n' || c === '\r' ? c : visibleEscape(c)))
    .replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
}

/** ` name="value"` with the value escaped; nothing when the value is undefined. */
export function attr(name: string, value: string | number | undefined | null): string {
  return value === undefined || value === null ? '' : ` ${name}="${esc(value)}"`;
}

/** Only data: URLs of raster images we made (thumbnails) may become an img src. */
export function safeImageUrl(url: string | undefined): string | undefined {
  return url && /^data:image\/(webp|jpeg|png);base64,[A-Za-z0-9+/=]+$/.test(url) ? url : undefined;
}
