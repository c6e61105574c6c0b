/**
 * Who may call the engine over IPC: only our window's main frame, showing our own page
 * (file URL of dist/renderer/index.html, any #hash). Pure, so it is unit-tested without
 * Electron; ipc.ts feeds it the facts of each message.
 */
export interface SenderFacts {
  /** The message came from our window's webContents. */
  fromOurWindow: boolean;
  /** It came from that webContents' main frame (not an iframe). */
  fromMainFrame: boolean;
  /** The sending frame's URL. */
  frameUrl: string;
}

export function isTrustedSender(f: SenderFacts, pageUrl: string): boolean {
  if (!f.fromOurWindow || !f.fromMainFrame) return false;
  const [base] = f.frameUrl.split('#');
  return base === pageUrl && pageUrl.startsWith('file://');
}
