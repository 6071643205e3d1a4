// The readable report of `provenance check` without --json: a few lines per file, then a summary.
import type { DetectionResult, ErrorInfo, Match } from '../types.js';
import type { Style } from './style.js';

export const CAVEAT =
  'A missing marker proves nothing: screenshots and re-encodes strip markers, and most cameras and editors never write them. A found marker is evidence, not proof.';

const LABEL_WIDTH = 18;

export function formatBytes(n: number): string {
  if (n < 1024) return `${n} B`;
  const units = ['KiB', 'MiB', 'GiB'];
  let value = n / 1024;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return `${value.toFixed(value < 10 ? 1 : 0)} ${units[unit]}`;
}

function validationWords(match: Match, s: Style): string | undefined {
  const v = match.claims?.validation;
  if (!v) return undefined;
  const codes = v.codes.filter((c) => c !== 'signingCredential.untrusted');
  if (v.state === 'trusted') return s.green('credential intact, signer chains to a trusted anchor');
  if (v.state === 'valid') {
    return 'credential intact (hashes and signature match); signer not checked against a trust list';
  }
  return s.red(`credential INVALID: changed after signing or badly signed (${codes.join(', ') || 'no code given'})`);
}

function matchLines(match: Match, s: Style): string[] {
  const label = match.check.padEnd(LABEL_WIDTH);
  const indent = ' '.repeat(2 + LABEL_WIDTH);
  if (match.result === 'unavailable') return [`  ${label}${s.yellow('unavailable')}: ${match.reason ?? ''}`];
  if (match.result === 'not_found') return [`  ${label}${s.dim('not found')}`];
  if (match.check === 'c2pa') {
    const signer = match.issuer ? `signed by ${s.bold(match.issuer)}` : 'signer names no organisation';
    const tool = match.claims?.claim_generator ? `, made with ${match.claims.claim_generator}` : '';
    const lines = [`  ${label}${s.green('found')}: ${signer}${tool}`];
    const words = validationWords(match, s);
    if (words) lines.push(`${indent}${words}`);
    if (match.claims?.assertions.length) lines.push(`${indent}${s.dim(`assertions: ${match.claims.assertions.join(', ')}`)}`);
    return lines;
  }
  if (match.check === 'camera_reference') {
    const strength = match.confidence >= 0.9 ? 'make, maker note, model and iOS version agree' : 'make and maker note agree, another field points to an editor';
    return [
      `  ${label}${s.green('found')}: EXIF of an Apple iPhone/iPad camera (${strength}; confidence ${match.confidence})`,
      `${indent}${s.dim('a hint toward a camera capture: EXIF can be edited')}`,
    ];
  }
  return [`  ${label}${s.green('found')} (confidence ${match.confidence})`];
}

export function formatResult(source: string, result: DetectionResult, s: Style): string {
  const lines = [
    s.bold(source),
    `  ${s.dim(`${result.media.type} · ${formatBytes(result.media.bytes)} · sha256 ${result.media.sha256}`)}`,
  ];
  const planned = result.matches.filter((m) => m.result === 'unavailable' && /planned/.test(m.reason ?? ''));
  for (const match of result.matches) {
    if (!planned.includes(match)) lines.push(...matchLines(match, s));
  }
  if (planned.length) {
    lines.push(`  ${'planned'.padEnd(LABEL_WIDTH)}${s.dim(`${planned.map((m) => m.check).join(', ')}: not available yet`)}`);
  }
  return `${lines.join('\n')}\n\n`;
}

export function formatError(source: string, error: ErrorInfo, s: Style): string {
  return `${s.bold(source)}\n  ${s.red('could not be read')}: ${error.message} (${error.type})\n\n`;
}

/** Tallies what a run found, for the closing summary line. */
export class RunTally {
  checked = 0;
  unreadable = 0;
  private readonly found = new Map<string, number>();
  private invalid = 0;

  add(result: DetectionResult): void {
    this.checked++;
    for (const m of result.matches) {
      if (m.result !== 'found') continue;
      this.found.set(m.check, (this.found.get(m.check) ?? 0) + 1);
      if (m.check === 'c2pa' && m.claims?.validation?.state === 'invalid') this.invalid++;
    }
  }

  summary(s: Style): string {
    const files = `${this.checked} file${this.checked === 1 ? '' : 's'} checked`;
    const unreadable = this.unreadable ? `, ${s.red(`${this.unreadable} could not be read`)}` : '';
    const found = [...this.found].map(([check, n]) => {
      const extra = check === 'c2pa' && this.invalid ? ` (${this.invalid} invalid)` : '';
      return `${check} found in ${n}${extra}`;
    });
    const foundText = found.length ? `; ${found.join(', ')}` : '; no marker found';
    return `${s.bold(files)}${unreadable}${foundText}.\n${s.dim(CAVEAT)}\n`;
  }
}
