// Whether the shared store is usable, so no request waits on one that is down: while it is not,
// every operation fails at once, and a probe every PROBE_INTERVAL_MS (or the client's reconnection)
// brings it back. One warning per outage, one line when it is back.
import type { Logger } from '../observability/logger.ts';
import { StoreUnavailableError } from './shared-store.ts';

/** How often a store that is down is tried again. */
const PROBE_INTERVAL_MS = 1000;

export interface AvailabilityOptions {
  logger: Logger;
  /** What the log lines call the store, e.g. `redis`. Never a URL: it may hold a password. */
  name: string;
  /**
   * Checks that the store answers and makes it ready for use (the shared secret, the generation
   * bumps it missed) before any request uses it again. Throws when it cannot.
   */
  recover(): Promise<void>;
  /** Every failed operation or connection error (metrics). */
  onFailure?(): void;
  /** Every change between usable and not (metrics). */
  onChange?(up: boolean): void;
}

export class StoreAvailability {
  #up = false;
  /** The outage was announced: the next recovery says so. */
  #announced = false;
  #probing = false;
  #timer: NodeJS.Timeout | undefined;
  #closed = false;

  constructor(private readonly options: AvailabilityOptions) {}

  get up(): boolean {
    return this.#up;
  }

  /** Runs an operation while the store is up; fails at once while it is not, and marks it down when it fails. */
  async run<T>(operation: () => Promise<T>): Promise<T> {
    if (!this.#up) throw new StoreUnavailableError();
    try {
      return await operation();
    } catch (error) {
      this.lost(error);
      throw new StoreUnavailableError(describe(error));
    }
  }

  /** An operation failed or the connection broke: bypass the store until a probe succeeds. */
  lost(error: unknown): void {
    if (this.#closed) return;
    this.options.onFailure?.();
    if (this.#up) {
      this.#up = false;
      this.options.onChange?.(false);
    }
    if (!this.#announced) {
      this.#announced = true;
      this.options.logger.warn(
        { store: this.options.name, reason: describe(error) },
        'cache store unreachable: answers are not cached and the upstream budget is counted per instance until it is back',
      );
    }
    this.#schedule();
  }

  /** Tries the store now (e.g. its client just reconnected). */
  probe(): void {
    if (this.#up || this.#probing || this.#closed) return;
    this.#probing = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
    void this.#recover();
  }

  async #recover(): Promise<void> {
    try {
      await this.options.recover();
    } catch (error) {
      this.#probing = false;
      this.lost(error);
      return;
    }
    this.#probing = false;
    if (this.#closed) return;
    this.#up = true;
    this.options.onChange?.(true);
    if (this.#announced) this.options.logger.info({ store: this.options.name }, 'cache store reachable again');
    this.#announced = false;
  }

  close(): void {
    this.#closed = true;
    this.#up = false;
    clearTimeout(this.#timer);
  }

  #schedule(): void {
    if (this.#timer || this.#probing || this.#closed) return;
    this.#timer = setTimeout(() => {
      this.#timer = undefined;
      this.probe();
    }, PROBE_INTERVAL_MS).unref();
  }
}

/** A short reason for the log, from the client's own words (they name no password, only host and port). */
function describe(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error);
  return message.length > 200 ? `${message.slice(0, 199)}…` : message;
}
