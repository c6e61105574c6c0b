/**
 * A modal question with two answers, for actions that cannot be taken back from here
 * (deleting on the NAS), or that change a lot at once (reopening a mirror put aside). Resolves true only on the explicit "yes" button; Escape, Cancel
 * or closing says no. Focus starts on Cancel.
 */
import { button, el, replace } from './dom.js';

export interface Confirm {
  readonly root: HTMLDialogElement;
  ask(title: string, body: string, yes: string): Promise<boolean>;
}

/** `tone`: 'danger' (the default) for what cannot be taken back, 'primary' for a plain go-ahead. */
export function confirmDialog(id: string, tone: 'danger' | 'primary' = 'danger'): Confirm {
  const title = el('h2', { id: `${id}-title` });
  const body = el('p', { id: `${id}-body` });
  let answer: (v: boolean) => void = () => undefined;
  const yes = button(
    '',
    () => {
      answer(true);
      root.close();
    },
    { id: `${id}-yes`, class: tone },
  );
  const no = button('Cancel', () => root.close(), { id: `${id}-no` });
  const root = el(
    'dialog',
    { id, 'aria-labelledby': title.id, 'aria-describedby': body.id },
    title,
    body,
    el('div', { class: 'row' }, yes, no),
  );
  root.addEventListener('close', () => answer(false));
  return {
    root,
    ask(t, b, y) {
      replace(title, t);
      replace(body, b);
      replace(yes, y);
      return new Promise<boolean>((resolve) => {
        answer = (v) => {
          answer = () => undefined;
          resolve(v);
        };
        root.showModal();
        no.focus();
      });
    },
  };
}
