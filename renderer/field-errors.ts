/**
 * Messages next to form fields: each control gets a slot below it (`<id>-error`, tied by
 * aria-describedby and aria-invalid), filled from an error the engine tagged with a field,
 * or from the window's own checks. Words for the user, never a schema path.
 */
import { el, replace } from './dom.js';

export interface FieldErrors {
  /** The slot to place under a control (call once per control). */
  slot(control: HTMLElement): HTMLElement;
  /** Shows `message` at the control named `field` (its `name`); false when no such field. */
  show(field: string, message: string): boolean;
  clear(): void;
}

export function fieldErrors(): FieldErrors {
  const slots = new Map<string, { control: HTMLElement; slot: HTMLElement }>();
  return {
    slot(control) {
      const slot = el('div', { class: 'field-error', id: `${control.id}-error`, 'aria-live': 'polite' });
      const name = control.getAttribute('name') ?? control.id;
      slots.set(name, { control, slot });
      // an edit takes the message away: it was about the old value
      control.addEventListener('input', () => {
        replace(slot);
        control.removeAttribute('aria-invalid');
      });
      control.setAttribute('aria-describedby', [control.getAttribute('aria-describedby'), slot.id].filter(Boolean).join(' '));
      return slot;
    },
    show(field, message) {
      const s = slots.get(field);
      if (!s) return false;
      replace(s.slot, message);
      s.control.setAttribute('aria-invalid', 'true');
      return true;
    },
    clear() {
      for (const { control, slot } of slots.values()) {
        replace(slot);
        control.removeAttribute('aria-invalid');
      }
    },
  };
}

/** The field an error from the engine is about, when it says. */
export const fieldOf = (e: unknown): string | undefined => {
  const f = (e as { field?: unknown } | null)?.field;
  return typeof f === 'string' ? f : undefined;
};

/** A capital first letter and a full stop: engine messages read as sentences. */
export const sentence = (m: string): string => {
  const t = m.trim();
  if (!t) return t;
  return `${t[0]!.toUpperCase()}${t.slice(1)}${/[.!?…]$/.test(t) ? '' : '.'}`;
};
