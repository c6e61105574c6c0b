/** The two IPC channels of the contract: calls (invoke/handle) and events (send/on). */
export const CALL_CHANNEL = 'nas-mirror:call';
export const EVENT_CHANNEL = 'nas-mirror:event';
