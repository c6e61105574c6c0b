/**
 * Storage: where the space goes, offline, from the mirrored sizes. A treemap (plain SVG,
 * squarified) of the folder's children by size: click a folder to drill down, breadcrumbs to
 * go back up; totals by kind and by year; the largest files; duplicates by name + size; and how
 * much of the folder is downloaded on this device (the rest are placeholders).
 */
import type { StorageView } from '../../app/contract/organize-shapes.js';
import { squarify } from '../../app/storage/treemap.js';
import { button, el, replace } from '../dom.js';
import { formatCount, formatSize, plural } from '../format.js';
import { messageOf, type UiContext, type View } from '../context.js';

const SVG = 'http://www.w3.org/2000/svg';
const W = 1000,
  H = 420;

function svg<K extends keyof SVGElementTagNameMap>(
  tag: K,
  attrs: Record<string, string | number>,
  ...kids: (Node | string)[]
): SVGElementTagNameMap[K] {
  const n = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) n.setAttribute(k, String(v));
  for (const k of kids) n.append(k);
  return n;
}

/** A horizontal bar list (by kind, by year). */
function bars(title: string, rows: readonly { key: string; bytes: number; files: number }[], id: string): HTMLElement {
  const max = Math.max(1, ...rows.map((r) => r.bytes));
  return el(
    'section',
    { class: 'panel', id },
    el('h3', {}, title),
    rows.length === 0
      ? el('p', { class: 'empty' }, 'Nothing here.')
      : el(
          'ul',
          { class: 'bars' },
          ...rows.map((r) =>
            el(
              'li',
              { 'data-key': r.key },
              el('span', { class: 'bar-label' }, r.key),
              el('meter', { min: 0, max, value: r.bytes, 'aria-label': `${r.key}: ${formatSize(r.bytes)}` }),
              el('span', { class: 'bar-value' }, `${formatSize(r.bytes)} · ${plural(r.files, 'file', 'files')}`),
            ),
          ),
        ),
  );
}

export function storageView(ctx: UiContext): View {
  const crumbs = el('nav', { class: 'crumbs', 'aria-label': 'Folder path', id: 'storage-crumbs' });
  const total = el('p', { class: 'storage-total', id: 'storage-total' });
  // space on this device (downloaded files) against the NAS's, for the folder shown
  const here = el('p', { class: 'storage-device', id: 'storage-device' });
  const map = el('div', { class: 'treemap', id: 'treemap' });
  const details = el('div', { class: 'storage-panels' });
  const root = el('section', { class: 'view storage-view', 'aria-label': 'Storage' }, crumbs, total, here, map, details);
  let current: string | undefined;
  let seq = 0;

  const render = (v: StorageView): void => {
    replace(
      crumbs,
      ...v.crumbs.flatMap((c, i) => {
        const last = i === v.crumbs.length - 1;
        const item = last
          ? el('span', { class: 'crumb current', 'aria-current': 'location' }, c.name)
          : button(c.name, () => void load(c.id), { class: 'link crumb' });
        return i === 0 ? [item] : [el('span', { class: 'sep', 'aria-hidden': 'true' }, '/'), item];
      }),
    );
    replace(
      total,
      `${formatSize(v.bytes)} in ${plural(v.files, 'file', 'files')} under ${v.folder.path}`,
      el('span', { class: 'muted' }, ` · computed offline in ${formatCount(v.computedMs)} ms`),
    );
    const rects = squarify(
      v.children.map((c) => c.bytes),
      { x: 0, y: 0, w: W, h: H },
    );
    const g = svg('svg', { viewBox: `0 0 ${W} ${H}`, role: 'group', 'aria-label': `Treemap of ${v.folder.path}` });
    v.children.forEach((c, i) => {
      const r = rects[i];
      if (!r) return;
      const share = v.bytes > 0 ? Math.round((c.bytes / v.bytes) * 100) : 0;
      const cell = svg(
        'g',
        {
          class: c.folder ? 'cell folder' : 'cell file',
          'data-id': c.id,
          'data-name': c.name,
          tabindex: c.folder ? 0 : -1,
          role: c.folder ? 'button' : 'img',
          'aria-label': `${c.name}: ${formatSize(c.bytes)} (${share}%)`,
        },
        svg('title', {}, `${c.name}\n${formatSize(c.bytes)} · ${plural(c.files, 'file', 'files')} · ${share}%`),
        svg('rect', { x: r.x + 1, y: r.y + 1, width: Math.max(0, r.w - 2), height: Math.max(0, r.h - 2), rx: 4 }),
      );
      if (r.w > 70 && r.h > 34) {
        cell.append(
          svg(
            'text',
            { x: r.x + 8, y: r.y + 20, class: 'cell-name' },
            c.name.length * 7.5 > r.w - 12 ? c.name.slice(0, Math.max(1, Math.floor((r.w - 16) / 7.5))) + '…' : c.name,
          ),
        );
        cell.append(svg('text', { x: r.x + 8, y: r.y + 36, class: 'cell-size' }, formatSize(c.bytes)));
      }
      if (c.folder) {
        cell.addEventListener('click', () => void load(c.id));
        cell.addEventListener('keydown', (ev) => {
          if (ev.key === 'Enter' || ev.key === ' ') {
            ev.preventDefault();
            void load(c.id);
          }
        });
      }
      g.append(cell);
    });
    replace(map, v.children.length ? g : el('p', { class: 'empty' }, 'This folder holds nothing with a size.'));
    replace(
      details,
      bars(
        'By kind',
        v.byKind.filter((k) => k.files > 0),
        'storage-kinds',
      ),
      bars('By year', v.byYear, 'storage-years'),
      el(
        'section',
        { class: 'panel', id: 'storage-largest' },
        el('h3', {}, 'Largest files'),
        el(
          'ol',
          { class: 'plain' },
          ...v.largest
            .slice(0, 15)
            .map((l) => el('li', {}, el('span', { class: 'entry-path' }, l.path), el('span', { class: 'bar-value' }, formatSize(l.bytes)))),
        ),
      ),
      el(
        'section',
        { class: 'panel', id: 'storage-duplicates' },
        el('h3', {}, 'Duplicates (same name and size)'),
        v.duplicates.length === 0
          ? el('p', { class: 'empty' }, 'None found.')
          : el(
              'ol',
              { class: 'plain' },
              ...v.duplicates
                .slice(0, 15)
                .map((d) =>
                  el(
                    'li',
                    { title: d.paths.join('\n') },
                    el('span', {}, `${d.name} × ${formatCount(d.count)}`),
                    el('span', { class: 'bar-value' }, `${formatSize(d.bytes * (d.count - 1))} reclaimable`),
                  ),
                ),
            ),
      ),
    );
  };

  const load = async (folderId?: string): Promise<void> => {
    const my = ++seq;
    try {
      const v = await ctx.client.call('storage', folderId ? { folderId } : {});
      if (my !== seq) return;
      current = v.folder.id;
      render(v);
      await device(v.folder.id, v.bytes, my);
    } catch (e) {
      if (my === seq) replace(total, el('span', { class: 'error' }, messageOf(e)));
    }
  };

  /** "On this device": the downloaded files below the folder, of what the NAS holds there. */
  const device = async (folderId: string, nasBytes: number, my: number): Promise<void> => {
    const d = await ctx.client.call('deviceSpace', { folderId });
    if (my !== seq) return;
    const files = plural(d.files, 'downloaded file', 'downloaded files');
    replace(
      here,
      `On this device: ${formatSize(d.bytes)} in ${files}, of ${formatSize(nasBytes)} on the NAS`,
      el('span', { class: 'muted' }, ' · the rest are placeholders (Keep or Open downloads, Free up space empties)'),
    );
  };

  return {
    id: 'storage',
    title: 'Storage',
    root,
    activate(arg) {
      void load(arg ?? current);
    },
    refresh(what) {
      if ((what === 'index' || what === 'content') && !root.hidden) void load(current);
    },
  };
}
