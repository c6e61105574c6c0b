/**
 * A background pass run at most once at a time: `kick` starts it, or, while it runs, asks for
 * one more run after it (the keeper's downloads, the creator's uploads). A pass that throws is
 * said through `failed` and does not stop later kicks.
 */
export class Rerun {
  private running: Promise<void> | undefined;
  private again = false;

  constructor(
    private readonly pass: () => Promise<void>,
    private readonly stopped: () => boolean,
    private readonly failed: (e: unknown) => void,
  ) {}

  /** Runs the pass soon (a run in progress runs once more after). */
  kick(): void {
    if (this.stopped()) return;
    if (this.running) {
      this.again = true;
      return;
    }
    this.running = this.loop().finally(() => {
      this.running = undefined;
    });
  }

  /** Resolves once no run is in progress. */
  async idle(): Promise<void> {
    while (this.running) await this.running;
  }

  private async loop(): Promise<void> {
    do {
      this.again = false;
      try {
        await this.pass();
      } catch (e) {
        this.failed(e);
      }
    } while (this.again && !this.stopped());
  }
}
