/**
 * Accessibility checks of the window, in the page. `axeViolations` runs axe-core's standard
 * rules (WCAG 2 A and AA: names of controls, labels, roles, contrast...) and returns one line
 * per rule broken. `a11yProblems` keeps only our own checks that axe does not make:
 * - contrast of text over a semi-transparent or layered background (color-mix() tints, the
 *   sticky search bar): axe leaves those "incomplete" (needs review), never a violation;
 *   ours composes the layers and computes the ratio;
 * - unique ids: axe 4.x no longer runs `duplicate-id` (only `duplicate-id-aria`), and a
 *   repeated id breaks our label `for` and `aria-controls` links.
 * (Our older "every control has a name" check is gone: axe's button-name, label, link-name,
 * aria-*-name rules cover it.) Both must come back empty.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';

const AXE_PATH = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

interface AxeResult {
  violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[]; failureSummary?: string }[] }[];
}

/** axe-core (wcag2a + wcag2aa rules) on the page as it is now: one line per element in violation. */
export async function axeViolations(page: Page): Promise<string[]> {
  // Not addScriptTag: the window's CSP (script-src 'self') rightly refuses an inline script, and
  // the tests keep that CSP on. The DevTools protocol's evaluate is not subject to it.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(readFileSync(AXE_PATH, 'utf8'));
  const result = (await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document, opts: unknown): Promise<unknown> } }).axe;
    return axe.run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa'] }, resultTypes: ['violations'] });
  })) as AxeResult;
  return result.violations.map((v) => {
    const first = v.nodes[0];
    const eg = v.nodes
      .slice(0, 3)
      .map((n) => n.target.map(String).join(' '))
      .join(' | ');
    return `${v.impact ?? '?'} ${v.id} (${v.help}): ${v.nodes.length} element(s), e.g. ${eg}${first?.failureSummary ? ` -- ${first.failureSummary.replace(/\s+/g, ' ').slice(0, 240)}` : ''}`;
  });
}

/** axe-core in the light theme, then the dark one (back to light after): lines prefixed with the theme. */
export async function axeBothThemes(page: Page): Promise<string[]> {
  const out: string[] = [];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    out.push(...(await axeViolations(page)).map((p) => `${scheme}: ${p}`));
  }
  await page.emulateMedia({ colorScheme: 'light' });
  return out;
}

/** Our own checks (see the header for what they add to axe): contrast over layered backgrounds, unique ids. */
export async function a11yProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const visible = (e: Element): boolean => {
      const r = (e as HTMLElement).getBoundingClientRect();
      const s = getComputedStyle(e);
      return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none';
    };
    const describe = (e: Element): string =>
      `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.className && typeof e.className === 'string' ? `.${e.className.split(' ').join('.')}` : ''} "${(e.textContent ?? '').trim().slice(0, 40)}"`;
    // contrast
    // rgb()/rgba(), or color(srgb r g b / a) with 0..1 channels (what color-mix() computes to)
    const rgba = (c: string): number[] => {
      const m = c
        .replace(/^color\(srgb/, '')
        .match(/[\d.]+/g)
        ?.map(Number) ?? [0, 0, 0, 1];
      const k = c.startsWith('color(srgb') ? 255 : 1;
      return [(m[0] ?? 0) * k, (m[1] ?? 0) * k, (m[2] ?? 0) * k, m[3] ?? 1];
    };
    const lum = ([r, g, b]: number[]): number => {
      const f = (v: number) => {
        const s = v / 255;
        return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
      };
      return 0.2126 * f(r!) + 0.7152 * f(g!) + 0.0722 * f(b!);
    };
    const bgOf = (e: Element | null): number[] => {
      const layers: number[][] = [];
      for (let n = e; n; n = n.parentElement) {
        const c = rgba(getComputedStyle(n).backgroundColor);
        if (c[3]! > 0) {
          layers.push(c);
          if (c[3]! >= 1) break;
        }
      }
      let acc = [255, 255, 255];
      for (const l of layers.reverse()) acc = acc.map((v, i) => l[i]! * l[3]! + v * (1 - l[3]!));
      return acc;
    };
    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
    const seen = new Set<Element>();
    for (let t = walker.nextNode(); t; t = walker.nextNode()) {
      const e = t.parentElement;
      if (!e || seen.has(e) || !(t.textContent ?? '').trim() || !visible(e)) continue;
      seen.add(e);
      if (e.closest('[disabled], [aria-hidden=true], .sr-only, option')) continue;
      const s = getComputedStyle(e);
      if (Number(s.opacity) === 0) continue;
      const fg = rgba(s.color);
      const bg = bgOf(e);
      const fgMixed = fg.slice(0, 3).map((v, i) => v * fg[3]! + bg[i]! * (1 - fg[3]!));
      const [a, b] = [lum(fgMixed), lum(bg)];
      const ratio = (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
      const size = parseFloat(s.fontSize);
      const large = size >= 24 || (size >= 18.66 && Number(s.fontWeight) >= 700);
      if (ratio < (large ? 3 : 4.5)) out.push(`contrast ${ratio.toFixed(2)}:1 for ${describe(e)}`);
    }
    // unique ids
    const ids = new Map<string, number>();
    for (const e of Array.from(document.querySelectorAll('[id]'))) ids.set(e.id, (ids.get(e.id) ?? 0) + 1);
    for (const [id, n] of ids) if (n > 1) out.push(`id "${id}" used ${n} times`);
    return out;
  });
}
