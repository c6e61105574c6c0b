/** Human formats for sizes, dates and paths shown in the window. Pure. */

export function formatSize(bytes: number | undefined): string {
  if (bytes === undefined) return '';
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let v = bytes, i = 0;
  while (v >= 1024 && i < units.length - 1) { v /= 1024; i++; }
  return `${i === 0 ? v : v.toFixed(v < 10 ? 1 : 0)} ${units[i]}`;
}

export function formatDate(iso: string | null | undefined): string {
  if (!iso) return '';
  const t = new Date(iso);
  if (Number.isNaN(t.getTime())) return iso;
  return t.toLocaleString(undefined, { year: 'numeric', month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit' });
}

export function ago(iso: string | null, now = Date.now()): string {
  if (!iso) return 'never';
  const s = Math.max(0, Math.round((now - Date.parse(iso)) / 1000));
  if (s < 60) return `${s}s ago`;
  if (s < 3600) return `${Math.round(s / 60)} min ago`;
  if (s < 86_400) return `${Math.round(s / 3600)} h ago`;
  return `${Math.round(s / 86_400)} days ago`;
}

export function joinPath(folder: string, name: string): string {
  return folder === '/' || folder === '' ? `/${name}` : `${folder}/${name}`;
}

/** The icon class of an object: folder, or file with a kind from its mimeType. */
export function iconClass(o: { mimeType: string }, folder: boolean): string {
  if (folder) return 'ico folder';
  const m = o.mimeType;
  const kind = m.startsWith('image/') ? 'image' : m.startsWith('video/') ? 'video' : m.startsWith('audio/') ? 'audio'
    : /pdf|text|document|msword|sheet|presentation/.test(m) ? 'doc' : '';
  return `ico file ${kind}`.trim();
}

/** "1 item", "2 items": the count and the right form of the word. */
export function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}
