/**
 * The tray icon: the pure state machine in app/tray decides the state, tooltip, menu and
 * notifications; this file only draws them with Electron. The whole menu is in the context
 * menu (Linux AppIndicator ignores clicks). Progress also shows on the window's taskbar entry.
 */
import { Menu, Notification, Tray, nativeImage, type BrowserWindow, type MenuItemConstructorOptions } from 'electron';
import { join } from 'node:path';
import type { AppStatus } from '../../app/contract/shapes.js';
import { notificationsFor, trayMenu, trayView, type TrayMenuItem, type TrayState } from '../../app/tray/tray-state.js';

export type TrayAction = Exclude<TrayMenuItem['id'], 'status' | 'separator'>;

export class AppTray {
  private readonly tray: Tray;
  private prev: AppStatus | null = null;
  private lastState: TrayState | null = null;
  private readonly timer: ReturnType<typeof setInterval>;
  private poll: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly iconDir: string,
    private readonly onAction: (a: TrayAction) => void,
    private readonly window: () => BrowserWindow | null,
    private readonly current: () => AppStatus,
  ) {
    this.tray = new Tray(this.icon('stale'));
    this.tray.setToolTip('NAS Mirror');
    // "stale" depends on the clock, not only on events: re-evaluate every minute.
    this.timer = setInterval(() => this.update(this.current(), false), 60_000);
  }

  private icon(state: TrayState): Electron.NativeImage {
    return nativeImage.createFromPath(join(this.iconDir, `${state}.png`));
  }

  /** Redraws for a new status; shows notifications owed by the transition. */
  update(s: AppStatus, notify = true): void {
    const view = trayView(s, Date.now());
    if (view.state !== this.lastState) {
      this.tray.setImage(this.icon(view.state));
      this.lastState = view.state;
    }
    this.tray.setToolTip(view.tooltip);
    const template: MenuItemConstructorOptions[] = trayMenu(view, s).map((item) =>
      item.id === 'separator'
        ? { type: 'separator' }
        : item.id === 'status'
          ? { label: item.label, enabled: false }
          : { label: item.label, enabled: item.enabled, click: () => this.onAction(item.id as TrayAction) },
    );
    this.tray.setContextMenu(Menu.buildFromTemplate(template));
    // a walk reports progress by polling; refresh while syncing
    if (view.state === 'syncing' && !this.poll)
      this.poll = setTimeout(() => {
        this.poll = undefined;
        this.update(this.current(), false);
      }, 2000);
    const win = this.window();
    if (win && !win.isDestroyed()) win.setProgressBar(view.state === 'syncing' ? 2 : -1); // 2 = indeterminate
    if (notify && Notification.isSupported()) {
      for (const n of notificationsFor(this.prev, s)) {
        const note = new Notification({ title: n.title, body: n.body, icon: this.icon('attention') });
        note.on('click', () => this.onAction(n.kind === 'auth-error' ? 'open' : 'conflicts'));
        note.show();
      }
    }
    this.prev = s;
  }

  destroy(): void {
    clearInterval(this.timer);
    if (this.poll) clearTimeout(this.poll);
    this.tray.destroy();
  }
}
