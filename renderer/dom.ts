/**
 * Building DOM without innerHTML: every text goes in as a text node, so nothing from the
 * NAS (file names, reasons) can ever become markup. Attributes are set one by one.
 */

export type Child = Node | string | number | null | undefined | false;
export type Attrs = Record<string, string | number | boolean | null | undefined>;

/** Creates an element with attributes (false/null/undefined skipped, true = empty) and children. */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v === null || v === undefined) continue;
    node.setAttribute(k, v === true ? '' : String(v));
  }
  append(node, ...children);
  return node;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false) continue;
    parent.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
}

/** Replaces all children. */
export function replace(parent: Node, ...children: Child[]): void {
  while (parent.firstChild) parent.removeChild(parent.firstChild);
  append(parent, ...children);
}

export function button(label: string, onClick: (ev: MouseEvent) => void, attrs: Attrs = {}): HTMLButtonElement {
  const b = el('button', { type: 'button', ...attrs }, label);
  b.addEventListener('click', onClick);
  return b;
}

/** A labelled form row: the label's `for` points at the control's id. */
export function field(label: string, control: HTMLElement, hint?: Child): HTMLElement {
  if (!control.id) control.id = `f-${Math.random().toString(36).slice(2, 9)}`;
  return el('div', { class: 'field' }, el('label', { for: control.id }, label), control, hint ? el('div', { class: 'hint' }, hint) : null);
}

/**
 * Resolves at the next frame (its `requestAnimationFrame`), or after a second where frames do
 * not run (a hidden window). (Not sooner: on a loaded machine a window's frames can be ~0.7 s
 * apart, and work done on a timer meanwhile was all laid out in the next frame at once.)
 */
export function nextFrame(): Promise<void> {
  return new Promise((resolve) => {
    const t = setTimeout(resolve, 1000);
    requestAnimationFrame(() => {
      clearTimeout(t);
      resolve();
    });
  });
}

/**
 * Applies `apply` to `items` in slices of `per`, one slice a frame: a change to many rows of
 * a long listing (a Keep turns 500 marks at once) is laid out in a few milliseconds a frame
 * instead of one task of ~50 ms.
 */
export async function perFrame<T>(items: readonly T[], per: number, apply: (item: T) => void): Promise<void> {
  for (let i = 0; i < items.length; i += per) {
    if (i > 0) await nextFrame();
    for (const it of items.slice(i, i + per)) apply(it);
  }
}
