/**
 * The connections of the client's own content reads (raw-read.ts), kept between reads per
 * origin (HTTP/1.1 keep-alive): one socket and its one read buffer each (net's `onread`), used
 * by one exchange at a time; an idle one is dropped after IDLE_MS (servers close theirs after
 * a few seconds), at most IDLE_MAX kept per origin. Bytes arriving on an idle connection make
 * it untrusted: closed.
 */
import net from 'node:net';

/**
 * The read buffer of a connection: 1 MiB (at 256 KiB, four times the reads for the same bytes,
 * and the Open of 1 GiB took 1.36-1.59x curl's time against 1.06-1.36x; bench:content, 3
 * rounds each). At most IDLE_MAX + the reads at once (the keeper's 4) of them: ~12 MiB.
 */
export const READ_BYTES = 1024 * 1024;
/**
 * The read buffer of a connection of the other GETs (listings, objects by id): a 304 or an
 * object is a few hundred bytes, a page of 1,000 objects ~400 KiB in a few reads.
 */
export const API_READ_BYTES = 64 * 1024;

/** Idle connections kept per origin, and how long one is kept idle (servers close theirs after ~5 s). */
const IDLE_MAX = 8;
const IDLE_MS = 2000;

/** What a connection's events go to while an exchange uses it. */
export interface ConnectionUser {
  onRead(buf: Buffer, n: number): boolean;
  onError(e: NodeJS.ErrnoException): void;
  onClose(): void;
}

/** One connection and its read buffer, used by one exchange at a time. */
export class RawConnection {
  readonly sock: net.Socket;
  /** It served an exchange before (a failure before any answer may be the server closing it meanwhile). */
  reused = false;
  connected = false;
  user: ConnectionUser | undefined;
  idleTimer: ReturnType<typeof setTimeout> | undefined;
  private dead = false;

  constructor(
    url: URL,
    private readonly onGone: (c: RawConnection) => void,
    readBytes: number,
  ) {
    const buffer = Buffer.allocUnsafe(readBytes);
    this.sock = net.connect({
      host: url.hostname.replace(/^\[|\]$/g, ''),
      port: Number(url.port || 80),
      onread: {
        buffer,
        callback: (n: number, buf: Buffer) => {
          // (bytes nobody asked for on an idle connection: it is not one to trust)
          if (this.user === undefined) {
            this.destroy();
            return false;
          }
          return this.user.onRead(buf, n);
        },
      },
    });
    this.sock.setNoDelay(true);
    this.sock.once('connect', () => {
      this.connected = true;
    });
    this.sock.on('error', (e: NodeJS.ErrnoException) => {
      this.gone();
      this.user?.onError(e);
    });
    this.sock.on('end', () => {
      this.gone();
      this.user?.onClose();
    });
    this.sock.on('close', () => {
      this.gone();
      this.user?.onClose();
    });
  }

  alive(): boolean {
    return !this.dead && !this.sock.destroyed;
  }

  destroy(): void {
    this.gone();
    this.sock.destroy();
  }

  private gone(): void {
    if (this.dead) return;
    this.dead = true;
    clearTimeout(this.idleTimer);
    this.onGone(this);
  }
}

/** The connections kept between reads, per origin (`host:port`), each with a read buffer of `readBytes`. */
export class RawConnections {
  private readonly idle = new Map<string, RawConnection[]>();
  /** Every connection not gone yet, idle or in use (closed with the pool, as node's agent destroys its sockets). */
  private readonly live = new Set<RawConnection>();
  private closed = false;

  constructor(private readonly readBytes = READ_BYTES) {}

  /** A connection to the URL's origin: a kept one, else (or `fresh`) a new one. */
  take(url: URL, fresh = false): RawConnection {
    const list = fresh ? undefined : this.idle.get(url.host);
    for (let c = list?.pop(); c !== undefined; c = list?.pop()) {
      clearTimeout(c.idleTimer);
      if (c.alive()) {
        c.reused = true;
        return c;
      }
    }
    const c = new RawConnection(url, (c) => this.forget(url.host, c), this.readBytes);
    this.live.add(c);
    return c;
  }

  /** Keeps a connection whose exchange ended cleanly (dropped after IDLE_MS unused, or when too many are kept). */
  give(url: URL, c: RawConnection): void {
    c.user = undefined;
    const list = this.idle.get(url.host) ?? [];
    if (this.closed || !c.alive() || list.length >= IDLE_MAX) {
      c.destroy();
      return;
    }
    list.push(c);
    this.idle.set(url.host, list);
    c.idleTimer = setTimeout(() => c.destroy(), IDLE_MS);
    c.idleTimer.unref();
  }

  /** Drops every connection, kept or in use (the transport closing: a read still under way fails, as a request of node's agent does). */
  close(): void {
    this.closed = true;
    for (const list of this.idle.values()) list.length = 0;
    for (const c of [...this.live]) c.destroy();
  }

  private forget(host: string, c: RawConnection): void {
    this.live.delete(c);
    const list = this.idle.get(host);
    const i = list?.indexOf(c) ?? -1;
    if (i >= 0) list!.splice(i, 1);
  }
}
