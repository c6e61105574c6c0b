/**
 * The outbox pump: takes entries in order (enqueue -> SEND -> SETTLE), one at a time. Each
 * is marked `sending` before its request leaves; its result is settled under the engine's
 * lock. An unfinished entry (network, 401) stops the pump and retries later with backoff
 * (1 s doubling to 5 min, with +-25 % jitter so many clients of a rebooting device do not
 * come back in step; 30 s after a 401). It never gives up: the entry waits for the NAS. NAS-first results make the disk follow once the
 * queue is through.
 */
import type { AppError } from '../../app/errors.js';
import type { ServiceClient } from '../client/service-client.js';
import { sendEntry } from '../outbox/send.js';
import { settleEntry } from '../outbox/settle.js';
import type { Core, Lock } from './core.js';

export interface PumpHost {
  core: Core;
  lock: Lock;
  client: ServiceClient;
  /** Not stopped, not paused, mirror present. */
  canSend(): boolean;
  stopped(): boolean;
  online(): void;
  noteNetwork(e: AppError): void;
  failed(step: string, e: unknown): void;
  schedule(fn: () => void, ms: number): void;
  reconcileNow(): Promise<void>;
  /** An entry for `id` was settled now. */
  settled(id: string): void;
  /** Something was sent in this run. */
  afterSent(): void;
}

export class OutboxPump {
  private running: Promise<void> | undefined;
  private again = false;
  private retryDelay = 1000;

  constructor(private readonly h: PumpHost) {}

  /** The NAS answered: the next retry waits the shortest time again. */
  resetBackoff(): void {
    this.retryDelay = 1000;
  }

  /** Starts the pump if it is not running (or runs it again after the current run). */
  kick(): void {
    if (this.running) { this.again = true; return; }
    this.running = this.run().catch((e: unknown) => this.h.failed('outbox', e)).finally(() => {
      this.running = undefined;
      if (this.again && !this.h.stopped()) { this.again = false; this.kick(); }
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
    const { core, lock, client } = this.h;
    let sentAny = false;
    let follow = false;
    while (this.h.canSend()) {
      const entry = core.outbox.next();
      if (!entry) break;
      core.outbox.markSending(entry.seq);
      const out = await sendEntry(client, core.model, entry);
      const finished = await lock.run(() => settleEntry(core, entry, out));
      if (!finished) {
        if (out.kind === 'retry' || out.kind === 'auth') this.h.noteNetwork(out.error);
        this.h.schedule(() => this.kick(), out.kind === 'auth' ? 30_000 : Math.round(this.retryDelay * (0.75 + Math.random() * 0.5)));
        this.retryDelay = Math.min(300_000, this.retryDelay * 2);
        break;
      }
      this.h.online();
      this.h.settled(entry.intent.id);
      sentAny = true;
      // The disk follows NAS-first changes (undo, re-apply, conflicts) once the queue is through.
      if (out.kind !== 'applied' || entry.origin !== 'local') follow = true;
    }
    if (follow) await this.h.reconcileNow();
    if (sentAny) this.h.afterSent();
  }
}
