/**
 * Organize: bulk rename and/or move what a search finds (operators allowed), by pattern.
 * Preview lists every change (old -> new) with collisions, invalid names and missing target
 * folders flagged; Apply sends the `ok` ones through the outbox as ONE activity entry, undone
 * from Activity with one Undo. Opened from Search ("Organize these…" for the query,
 * "Organize selected…" for the ticked rows: then the source is "N selected objects", by id),
 * from Browse ("Organize this folder…") or on its own.
 */
import type { OrganizePlan, PlanStatus } from '../../app/contract/organize-shapes.js';
import { TOKEN_HELP } from '../../app/organize/pattern.js';
import { button, el, field, replace } from '../dom.js';
import { formatCount, plural } from '../format.js';
import { messageOf, type UiContext, type View } from '../context.js';
import { SELECTION_ARG, takeSelection, type Picked } from '../selection.js';

const SHOWN = 500;
const LABEL: Record<PlanStatus, string> = {
  ok: 'will change',
  unchanged: 'unchanged',
  collision: 'collision',
  invalid: 'invalid name',
  'missing-folder': 'missing folder',
};

export function organizeView(ctx: UiContext): View {
  const q = el('input', {
    type: 'search',
    id: 'organize-q',
    placeholder: 'IMG ext:jpg in:"Photos/2019"',
    autocomplete: 'off',
    spellcheck: 'false',
  });
  const rename = el('input', {
    type: 'text',
    id: 'organize-rename',
    placeholder: '{date:YYYY-MM-DD} {name}.{ext:lower}',
    autocomplete: 'off',
    spellcheck: 'false',
  });
  const move = el('input', {
    type: 'text',
    id: 'organize-move',
    placeholder: 'Photos/{date:YYYY}/{date:MM}',
    autocomplete: 'off',
    spellcheck: 'false',
  });
  const previewBtn = button('Preview', () => void preview(), { class: 'primary', id: 'organize-preview' });
  const applyBtn = button('Apply', () => void apply(), { id: 'organize-apply', disabled: true });
  const summary = el('div', { class: 'organize-summary', id: 'organize-summary', 'aria-live': 'polite' });
  const tbody = el('tbody', { id: 'organize-rows' });
  const table = el(
    'table',
    { class: 'listing organize-plan', 'aria-label': 'Planned changes', hidden: true },
    el(
      'thead',
      {},
      el('tr', {}, el('th', { scope: 'col' }, 'Now'), el('th', { scope: 'col' }, 'After'), el('th', { scope: 'col' }, 'Status')),
    ),
    tbody,
  );
  const qField = field('What (a search; filters allowed)', q);
  const sourceText = el('span', { id: 'organize-source-count' });
  const sourceNames = el('div', { class: 'muted small', id: 'organize-source-names' });
  const source = el(
    'div',
    { class: 'organize-source', id: 'organize-source', hidden: true },
    el(
      'div',
      {},
      el('strong', {}, 'What: '),
      sourceText,
      ' ',
      button('Use a search instead', () => useQuery(), { class: 'link', id: 'organize-use-query' }),
    ),
    sourceNames,
  );
  const form = el(
    'form',
    { class: 'organize-form', id: 'organize-form' },
    source,
    qField,
    field('Rename to', rename, `Tokens: ${TOKEN_HELP}. Empty: keep the names.`),
    field('Move into', move, 'A folder path from the top of the NAS; it must exist (folders cannot be created). Empty: stay in place.'),
    el('div', { class: 'buttons' }, previewBtn, applyBtn),
  );
  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    void preview();
  });
  const root = el('section', { class: 'view organize-view', 'aria-label': 'Organize' }, form, summary, table);
  let plan: OrganizePlan | null = null;
  let planned = '';
  /** The ticked objects from Search, when the source is a selection rather than a query. */
  let picks: Picked | null = null;

  const args = (): { q: string; rename?: string; move?: string } | { ids: string[]; rename?: string; move?: string } => ({
    ...(picks ? { ids: [...picks.ids] } : { q: q.value.trim() }),
    ...(rename.value.trim() ? { rename: rename.value.trim() } : {}),
    ...(move.value.trim() ? { move: move.value.trim() } : {}),
  });
  const key = (): string => JSON.stringify(args());
  for (const i of [q, rename, move])
    i.addEventListener('input', () => {
      applyBtn.disabled = plan === null || key() !== planned || plan.counts.ok === 0;
    });

  const preview = async (): Promise<void> => {
    if (!picks && !q.value.trim()) {
      replace(summary, el('span', { class: 'error' }, 'Say what to organize: a search such as IMG ext:jpg in:"Photos/2019".'));
      return;
    }
    try {
      const p = await ctx.client.call('organizePreview', args());
      plan = p;
      planned = key();
      const c = p.counts;
      replace(
        summary,
        el('strong', { id: 'organize-counts' }, `${formatCount(p.items.length)} selected: ${formatCount(c.ok)} will change`),
        el(
          'span',
          {},
          `, ${formatCount(c.unchanged)} unchanged, ${plural(c.collision, 'collision', 'collisions')}, ${plural(c.invalid, 'invalid name', 'invalid names')}, ${formatCount(c.missingFolder)} in missing folders.`,
        ),
        p.truncated ? el('span', { class: 'warn' }, ' More matched: one batch takes 10,000.') : null,
        p.missingFolders.length
          ? el(
              'div',
              { class: 'warn', id: 'organize-missing' },
              `Create these folders on the NAS first: ${p.missingFolders.slice(0, 12).join(', ')}${p.missingFolders.length > 12 ? ` and ${formatCount(p.missingFolders.length - 12)} more` : ''}.`,
            )
          : null,
        c.ok > 0
          ? el(
              'div',
              { class: 'muted' },
              'Apply sends the changes that will change; flagged ones are left out. One Undo in Activity reverts the batch.',
            )
          : null,
      );
      const rows = [...p.items].sort((a, b) => Number(a.status === 'ok') - Number(b.status === 'ok')).slice(0, SHOWN);
      replace(
        tbody,
        ...rows.map((i) =>
          el(
            'tr',
            { class: `plan-${i.status}`, 'data-status': i.status },
            el('td', { class: 'entry-path' }, i.from === '' ? `(id ${i.id})` : `/${i.from}`),
            el('td', { class: 'entry-path' }, i.from === '' ? '' : `/${i.to}`),
            el(
              'td',
              {},
              el('span', { class: `pill ${i.status}`, title: i.problem ?? '' }, LABEL[i.status]),
              i.problem ? el('div', { class: 'muted small' }, i.problem) : null,
            ),
          ),
        ),
      );
      if (p.items.length > SHOWN)
        tbody.append(
          el('tr', {}, el('td', { colspan: 3, class: 'muted' }, `… and ${formatCount(p.items.length - SHOWN)} more (flagged ones first)`)),
        );
      table.hidden = p.items.length === 0;
      applyBtn.disabled = c.ok === 0;
      applyBtn.textContent = c.ok > 0 ? `Apply ${plural(c.ok, 'change', 'changes')}` : 'Apply';
    } catch (e) {
      plan = null;
      applyBtn.disabled = true;
      replace(summary, el('span', { class: 'error' }, messageOf(e)));
    }
  };

  const apply = async (): Promise<void> => {
    applyBtn.disabled = true;
    try {
      const out = await ctx.client.call('organizeApply', args());
      ctx.toast(
        `Queued ${plural(out.queued, 'change', 'changes')} as one batch${out.skipped.length ? `; ${formatCount(out.skipped.length)} skipped (changed since the preview)` : ''}. Undo it from Activity.`,
      );
      plan = null;
      replace(
        summary,
        el(
          'span',
          { id: 'organize-done' },
          `Queued ${plural(out.queued, 'change', 'changes')} as one batch. Each is sent only if the item is still as the preview ` +
            'showed it: anything someone changed on the NAS meanwhile is left as it is and listed in Conflicts for you to decide.',
        ),
        ' ',
        button('See it in Activity', () => ctx.show('activity'), { class: 'link' }),
      );
      replace(tbody);
      table.hidden = true;
    } catch (e) {
      ctx.toast(messageOf(e), 'error');
      applyBtn.disabled = false;
    }
  };

  const reset = (): void => {
    plan = null;
    applyBtn.disabled = true;
    applyBtn.textContent = 'Apply';
    replace(summary);
    replace(tbody);
    table.hidden = true;
  };
  const showSource = (): void => {
    source.hidden = picks === null;
    qField.hidden = picks !== null;
    if (!picks) return;
    const n = picks.ids.length;
    sourceText.textContent = plural(n, 'selected object', 'selected objects');
    sourceNames.textContent = picks.names.slice(0, 8).join(', ') + (n > 8 ? ` and ${formatCount(n - 8)} more` : '');
  };
  function useQuery(): void {
    picks = null;
    showSource();
    reset();
    q.focus();
  }

  return {
    id: 'organize',
    title: 'Organize',
    root,
    activate(arg) {
      if (arg === SELECTION_ARG) {
        picks = takeSelection();
        showSource();
        reset();
      } else if (arg !== undefined) {
        picks = null;
        showSource();
        q.value = arg;
        reset();
      }
      (picks || q.value ? rename : q).focus();
    },
  };
}
