/** What every view gets: the contract client, the latest status, navigation and a toast. */
import type { ContractClient } from '../app/contract/methods.js';
import type { AppStatus } from '../app/contract/shapes.js';

export const VIEW_IDS = ['search', 'browse', 'organize', 'storage', 'activity', 'conflicts', 'settings'] as const;
export type ViewId = (typeof VIEW_IDS)[number];

export interface UiContext {
  client: ContractClient;
  status(): AppStatus | null;
  show(view: ViewId, arg?: string): void;
  toast(message: string, level?: 'info' | 'error'): void;
  /** Opens a file, or explains that its content is on the NAS (a placeholder). */
  openFile(id: string, name: string): Promise<void>;
}

export interface View {
  readonly id: ViewId;
  readonly title: string;
  readonly root: HTMLElement;
  /** Called each time the view is shown (with an optional argument, e.g. a folder id). */
  activate(arg?: string): void;
  /** Called when the engine says something changed. */
  refresh?(what: string): void;
  /** Puts the keyboard focus in the view (after a tab switch); the view itself when absent. */
  focus?(): void;
}

/** The message of anything thrown by a call, for the user. */
export const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));
