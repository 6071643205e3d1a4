// The structure of the HTML report of examples/, as the README's screenshot shows it
// (docs/images/report.png, made by scripts/report-screenshot.ts): its landmarks and headings,
// the chart's table, the filters, the sort order's choices, each row's parts and results, and
// the outline of the card the screenshot opens. Written beside the picture as
// docs/images/report.structure.json; test/report/report-screenshot.test.ts makes it again from a
// fresh report and compares, so a change to the page's structure fails until the picture is
// made again. Times, sizes, hashes and pixels are left out: they change from run to run.
import type { Page } from 'playwright-core';

/** The viewport and the card the screenshot shows (the script and the test use the same). */
export const SHOT = { width: 1100, height: 860, card: 'examples/signed.jpg' } as const;

export interface ReportStructure {
  outline: string[];
  chart: { columns: string[]; checks: string[] };
  filters: string[];
  sort: string[];
  rows: { source: string; parts: string[]; thumbnail: string; tags: string; results: Record<string, string> }[];
  card: { source: string; outline: string[]; labels: string[] };
}

/** Opens the card of SHOT.card (the row's summary clicked, as a reader would). */
export async function openShotCard(page: Page): Promise<void> {
  await page.locator(`#rows > li[data-source="${SHOT.card}"] summary`).click();
  await page.locator(`#rows > li[data-source="${SHOT.card}"] .card`).waitFor();
}

/** The structure of the report open in `page` (its card of SHOT.card opened by openShotCard). */
export function reportStructure(page: Page): Promise<ReportStructure> {
  return page.evaluate((cardSource) => {
    // An element as tag#id.class[role=...] (aria-label and heading text where there is one).
    const name = (e: Element): string => {
      let s = e.tagName.toLowerCase();
      if (e.id) s += `#${e.id}`;
      for (const c of Array.from(e.classList).sort()) s += `.${c}`;
      const role = e.getAttribute('role');
      if (role) s += `[role=${role}]`;
      const label = e.getAttribute('aria-label');
      if (label) s += `[aria-label=${label}]`;
      if (/^H[1-6]$/.test(e.tagName)) s += ` "${e.textContent}"`;
      return s;
    };
    // Elements to a depth, indented; the rows' list and the chart's table are summarised apart.
    const outline = (root: Element, depth: number, skip: (e: Element) => boolean): string[] => {
      const out: string[] = [];
      const walk = (e: Element, level: number) => {
        for (const child of Array.from(e.children)) {
          if (['SCRIPT', 'STYLE', 'I', 'SPAN', 'BR'].includes(child.tagName) && !child.id) continue;
          out.push(`${'  '.repeat(level)}${name(child)}`);
          if (level + 1 < depth && !skip(child)) walk(child, level + 1);
        }
      };
      walk(root, 0);
      return out;
    };
    const main = document.querySelector('main')!;
    const rows = Array.from(document.querySelectorAll('#rows > li'));
    const card = document.querySelector(`#rows > li[data-source="${cardSource}"] .card`);
    return {
      outline: [`main${document.querySelector('main') ? '' : ' (missing)'}`, ...outline(main, 4, (e) => e.id === 'rows' || e.id === 'chart' || e.tagName === 'LABEL')],
      chart: {
        columns: Array.from(document.querySelectorAll('#chart thead th')).map((th) => th.textContent ?? ''),
        checks: Array.from(document.querySelectorAll('#chart tbody th')).map((th) => th.textContent ?? ''),
      },
      filters: Array.from(document.querySelectorAll('input[name=show]')).map((i) => `${(i as HTMLInputElement).value}: ${i.parentElement?.textContent?.trim()}`),
      sort: Array.from(document.querySelectorAll('#sort option')).map((o) => `${(o as HTMLOptionElement).value}: ${o.textContent}`),
      rows: rows.map((r) => ({
        source: r.getAttribute('data-source') ?? '',
        parts: Array.from(r.querySelector('summary')?.children ?? []).map((c) => c.className),
        thumbnail: r.querySelector('summary img') ? 'picture' : (r.querySelector('summary .thumb')?.textContent ?? ''),
        tags: r.getAttribute('data-tags') ?? '',
        results: Object.fromEntries(
          Array.from(r.attributes)
            .filter((a) => a.name.startsWith('data-result-'))
            .map((a) => [a.name.slice(12), a.value]),
        ),
      })),
      card: {
        source: cardSource,
        outline: card ? outline(card, 3, () => false) : ['(no card)'],
        labels: card ? Array.from(card.querySelectorAll('h4, dt')).map((e) => `${e.tagName.toLowerCase()} ${e.textContent}`) : [],
      },
    };
  }, SHOT.card);
}
