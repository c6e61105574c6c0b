/**
 * Entry point of the window. Inside Electron the preload's bridge carries the contract;
 * in browser mode a WebSocket to the headless engine does (same origin, same secret path).
 */
import { startApp } from './app.js';
import { preloadClient, socketClient, type Link } from './transport.js';

const root = document.getElementById('app');
if (root) {
  if (window.nasMirror) {
    startApp(root, preloadClient(window.nasMirror));
  } else {
    const url = new URL('ws', location.href);
    url.protocol = location.protocol === 'https:' ? 'wss:' : 'ws:';
    url.hash = '';
    let setLink: (link: Link) => void = () => undefined;
    const client = socketClient(url.toString(), (link) => setLink(link));
    setLink = startApp(root, client, { notify: true }).setLink; // Electron notifies from its main process
  }
}
