/**
 * Accessibility checks run in the page, for what axe-core's serious/critical rules would
 * catch here (axe-core itself is not installed): every visible control has an accessible
 * name; text contrast is at least 4.5:1 (3:1 for large text), computed from the actual
 * colours against the first opaque background behind the text; ids are unique. Returns
 * the problems found, as lines a person can act on.
 */
import type { Page } from 'playwright-core';

export async function a11yProblems(page: Page): Promise<string[]> {
  return page.evaluate(() => {
    const out: string[] = [];
    const visible = (e: Element): boolean => { const r = (e as HTMLElement).getBoundingClientRect(); const s = getComputedStyle(e); return r.width > 0 && r.height > 0 && s.visibility !== 'hidden' && s.display !== 'none'; };
    const describe = (e: Element): string => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}${e.className && typeof e.className === 'string' ? `.${e.className.split(' ').join('.')}` : ''} "${(e.textContent ?? '').trim().slice(0, 40)}"`;
    // names
    for (const e of Array.from(document.querySelectorAll('button, input, select, textarea, a[href], [role=tab], [role=listbox], [role=option], [tabindex="0"]'))) {
      if (!visible(e)) continue;
      const labels = (e as HTMLInputElement).labels;
      const by = e.getAttribute('aria-labelledby');
      const name = e.getAttribute('aria-label') ?? (by ? by.split(' ').map((id) => document.getElementById(id)?.textContent ?? '').join(' ') : '') ?? '';
      const text = e.tagName === 'INPUT' || e.tagName === 'SELECT' || e.tagName === 'TEXTAREA' ? '' : (e.textContent ?? '');
      if (!name.trim() && !text.trim() && !(labels && labels.length > 0) && !e.getAttribute('title')) out.push(`no accessible name: ${describe(e)}`);
    }
    // contrast
    // rgb()/rgba(), or color(srgb r g b / a) with 0..1 channels (what color-mix() computes to)
    const rgba = (c: string): number[] => {
      const m = c.replace(/^color\(srgb/, '').match(/[\d.]+/g)?.map(Number) ?? [0, 0, 0, 1];
      const k = c.startsWith('color(srgb') ? 255 : 1;
      return [(m[0] ?? 0) * k, (m[1] ?? 0) * k, (m[2] ?? 0) * k, m[3] ?? 1];
    };
    const lum = ([r, g, b]: number[]): number => { const f = (v: number) => { const s = v / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; }; return 0.2126 * f(r!) + 0.7152 * f(g!) + 0.0722 * f(b!); };
    const bgOf = (e: Element | null): number[] => {
      const layers: number[][] = [];
      for (let n = e; n; n = n.parentElement) { const c = rgba(getComputedStyle(n).backgroundColor); if (c[3]! > 0) { layers.push(c); if (c[3]! >= 1) break; } }
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
