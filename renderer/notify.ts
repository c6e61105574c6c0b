/**
 * Notifications in browser mode (the Electron shell shows its own, main/shell/tray.ts):
 * the same `notificationsFor(prev, next)` as the tray, through the Notifications API.
 * Permission is asked once, on the user's first click (browsers ignore a request made
 * without one); clicking a notification brings the window forward on the view it is about.
 */
import type { AppStatus } from '../app/contract/shapes.js';
import { notificationsFor } from '../app/tray/tray-state.js';
import { ignore } from '../app/util/ignore.js';

export function browserNotifier(show: (view: 'conflicts' | 'settings') => void): (prev: AppStatus | null, next: AppStatus) => void {
  if (typeof Notification === 'undefined') return () => undefined;
  if (Notification.permission === 'default') {
    document.addEventListener(
      'click',
      () => {
        void Notification.requestPermission().catch(ignore('without permission the window shows toasts only'));
      },
      { once: true },
    );
  }
  return (prev, next) => {
    if (prev === null || Notification.permission !== 'granted') return;
    for (const n of notificationsFor(prev, next)) {
      const note = new Notification(n.title, { body: n.body, tag: `nas-mirror-${n.kind}` });
      note.onclick = () => {
        window.focus();
        show(n.kind === 'auth-error' || n.kind === 'mirror-missing' ? 'settings' : 'conflicts');
      };
    }
  };
}
