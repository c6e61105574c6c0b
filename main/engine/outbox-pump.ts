/**
 * The outbox pump: takes entries in order (enqueue -> SEND -> SETTLE), one at a time. Each
 * is marked `sending` before its request leaves; its result is settled under the engine's
 * lock. An unfinished entry (network, 401) stops the pump and retries later with the state
 * machine's backoff (engine-state.ts `retryDelayMs`: 1 s doubling to 5 min, +-25 % jitter,
 * 30 s after a 401). It never gives up: the entry waits for the NAS. NAS-first results make
 * the disk follow once the queue is through.
 */
import type { RemoteObject } from '../../app/model/remote-object.js';
import type { OutboxEntry } from '../outbox/outbox-store.js';
import type { ServiceClient } from '../client/service-client.js';
import { sendEntry } from '../outbox/send.js';
import { settleEntry, type SettlePort } from '../outbox/settle.js';
import type { Lock } from './core.js';
import type { EngineEvent } from './engine-state.js';

/** What the pump uses of the engine. */
export interface PumpPort {
  /** The model and the stores settling writes to. */
  readonly settle: SettlePort;
  readonly lock: Lock;
  readonly client: ServiceClient;
  /** Not stopped, not paused, mirror present. */
  canSend(): boolean;
  /** 'sent' or 'send-failed', to the state machine. */
  report(ev: EngineEvent): void;
  /** The wait before the next try, from the state machine's backoff. */
  retryDelay(): number;
  schedule(fn: () => void, ms: number): void;
  failed(step: string, e: unknown): void;
  /** An entry for `id` was settled now. */
  settled(id: string): void;
  /** A run is through: `follow` when the disk must follow NAS-first results, `sent` when anything was settled. */
  ranThrough(r: { follow: boolean; sent: boolean }): Promise<void>;
}

export class OutboxPump {
  private running: Promise<void> | undefined;
  private again = false;

  constructor(private readonly h: PumpPort) {}

  /** Starts the pump if it is not running (or runs it again after the current run). */
  kick(): void {
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.run()
      .catch((e: unknown) => this.h.failed('outbox', e))
      .finally(() => {
        this.running = undefined;
        if (this.again && this.h.canSend()) {
          this.again = false;
          this.kick();
        }
      });
  }

  /** Sends until the outbox is empty or the NAS cannot be reached. */
  async drain(): Promise<void> {
    this.kick();
    while (this.running) await this.running;
  }

  /** Waits for a run in progress. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async run(): Promise<void> {
    const { settle, lock, client } = this.h;
    let sent = false;
    let follow = false;
    while (this.h.canSend()) {
      const entry = settle.outbox.next();
      if (!entry) break;
      settle.outbox.markSending(entry.seq);
      const out = await sendEntry(client, settle.model, entry);
      const finished = await lock.run(() => settleEntry(settle, entry, out));
      if (!finished) {
        if (out.kind === 'retry' || out.kind === 'auth')
          this.h.report({ type: 'send-failed', error: { code: out.error.code, message: out.error.message } });
        this.h.schedule(() => this.kick(), this.h.retryDelay());
        break;
      }
      this.h.report({ type: 'sent' });
      this.h.settled(entry.intent.id);
      sent = true;
      // The disk follows NAS-first changes (undo, re-apply, conflicts) once the queue is through,
      // and a local change that landed on a NAS version the disk does not show (a re-base over
      // a move made on the NAS: `fresh` is what the NAS now holds).
      if (out.kind !== 'applied' || entry.origin !== 'local' || landedElsewhere(entry, out.fresh)) follow = true;
    }
    if (follow || sent) await this.h.ranThrough({ follow, sent });
  }
}

/** A local change the NAS applied on a version the disk does not show: re-based over a move or rename made on the NAS. */
function landedElsewhere(entry: OutboxEntry, fresh: RemoteObject | undefined): boolean {
  const i = entry.intent;
  if (!fresh || i.op !== 'patch') return false;
  return fresh.parentID !== (i.parentID ?? i.fromParent) || fresh.name !== (i.name ?? i.fromName);
}
