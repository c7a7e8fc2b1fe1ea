// One attempt of an upstream call, as undici's dispatch handler: it buffers the answer up to a size
// cap (its own, and one shared by every attempt in flight), notes the moment undici starts writing
// the request on a socket (from then on the request may have reached the upstream), and ends at its
// deadline whether it is still waiting for a connection, waiting for headers or reading the body. A
// write, once on a socket, may switch to a deadline of its own: the caller leaving no longer cuts it
// (a cut write is applied anyway, unseen). A read its caller left once it was on a socket ends for the
// caller at once, and its answer is read to the end and dropped, so the socket stays in the pool.
import type { IncomingHttpHeaders } from 'node:http';
import type { Dispatcher } from 'undici';
import { type CallDeadline, deadlineAt, onExpired } from './deadline.ts';

export interface RawAnswer {
  status: number;
  headers: IncomingHttpHeaders;
  /** The whole body as UTF-8 text. */
  text: string;
}

/** The answer is larger than the attempt accepts (by Content-Length, or counted while reading). */
export class ResponseTooLargeError extends Error {
  override readonly name = 'ResponseTooLargeError';
  constructor(readonly status: number) {
    super('Upstream response over the size limit.');
  }
}

/**
 * The answer bytes buffered by all attempts in flight of one transport, against their cap: each
 * attempt's cap alone would let the pool's connections hold UPSTREAM_CONNECTIONS × its size at once.
 */
export class AnswerBuffers {
  bytes = 0;
  constructor(readonly maxBytes: number) {}
}

/** The attempt's deadline passed or its caller left (`CallDeadline.abortKind()` says which). */
class AttemptCancelledError extends Error {
  override readonly name = 'AttemptCancelledError';
}

/** No headers: what an attempt holds before its answer starts and after `takeAnswer`. */
const NO_HEADERS: IncomingHttpHeaders = Object.freeze({});

export class Attempt implements Dispatcher.DispatchHandler {
  /**
   * Settles when the whole answer is in (then `takeAnswer()`), or with the attempt's failure. It
   * carries no answer: a promise made before the wait has usually reached the old generation by
   * then, and an answer it held would outlive the call until the next full collection.
   */
  readonly answered: Promise<void>;
  /** Undici started writing the request: it may have reached the upstream. */
  sent = false;
  private readonly startedAt = performance.now();
  private writtenAt = 0;
  private endedAt = 0;
  private controller: Dispatcher.DispatchController | undefined;
  private status = 0;
  private headers = NO_HEADERS;
  private readonly chunks: Buffer[] = [];
  private bytes = 0;
  private resolve!: () => void;
  private reject!: (error: Error) => void;
  /** Stops listening for the deadline. */
  private unwatch: () => void = () => {};
  /** Set once the caller left a request already written: what is left of its answer is dropped. */
  private drain: Drain | undefined;
  private drainedBytes = 0;

  /**
   * `onceSent`: the deadline from the moment the request is written, in place of `deadline` (a
   * write seen through to its answer).
   */
  constructor(
    public deadline: CallDeadline,
    private readonly maxBytes: number,
    private readonly buffers: AnswerBuffers,
    private readonly onceSent?: CallDeadline,
  ) {
    this.answered = new Promise<void>((resolve, reject) => {
      this.resolve = resolve;
      this.reject = reject;
    });
    this.unwatch = onExpired(deadline, this.expire);
  }

  /** Time spent inside the gateway before the request was written (pool wait, connecting). */
  get queuedMs(): number {
    return (this.sent ? this.writtenAt : this.endedAt) - this.startedAt;
  }

  /** Time from being written to the end of the attempt. */
  get wireMs(): number {
    return this.sent ? this.endedAt - this.writtenAt : 0;
  }

  onRequestStart(controller: Dispatcher.DispatchController): void {
    // Given up while it waited for a connection: throwing here makes undici drop the request
    // unwritten and keep the socket for the next one.
    if (this.endedAt) throw new AttemptCancelledError();
    this.sent = true;
    if (this.onceSent) {
      this.unwatch();
      this.deadline = this.onceSent;
      this.unwatch = onExpired(this.deadline, this.expire);
    }
    this.writtenAt = performance.now();
    this.controller = controller;
  }

  onResponseStart(_controller: Dispatcher.DispatchController, status: number, headers: IncomingHttpHeaders): void {
    if (status < 200) return; // 1xx informational: the real answer follows
    // Thrown errors make undici abort the request and destroy the socket, then call onResponseError.
    if (Number(headers['content-length']) > this.maxBytes) throw new ResponseTooLargeError(status);
    this.status = status;
    this.headers = headers;
  }

  onResponseData(_controller: Dispatcher.DispatchController, chunk: Buffer): void {
    if (this.endedAt) {
      // Ended for its caller: nothing is kept, and a drain stops at the size an answer may have.
      if (!this.drain) return;
      this.drainedBytes += chunk.length;
      if (this.bytes + this.drainedBytes > this.maxBytes) throw new ResponseTooLargeError(this.status);
      return;
    }
    const { buffers } = this;
    if (this.bytes + chunk.length > this.maxBytes || buffers.bytes + chunk.length > buffers.maxBytes) {
      throw new ResponseTooLargeError(this.status);
    }
    this.bytes += chunk.length;
    buffers.bytes += chunk.length;
    this.chunks.push(chunk);
  }

  onResponseEnd(): void {
    if (!this.end()) {
      this.drain?.stop(); // read to its end: the socket goes back to the pool
      return;
    }
    this.resolve();
  }

  /** The answer, once `answered` settled: decoded here, and nothing of it left in the attempt. */
  takeAnswer(): RawAnswer {
    const { chunks, status, headers } = this;
    const text = chunks.length === 1 ? (chunks[0] as Buffer).toString('utf8') : Buffer.concat(chunks, this.bytes).toString('utf8');
    chunks.length = 0;
    this.headers = NO_HEADERS;
    return { status, headers, text };
  }

  onResponseError(_controller: Dispatcher.DispatchController, error: Error): void {
    if (this.end()) this.reject(error);
    else this.drain?.stop();
  }

  /**
   * The deadline passed or the caller left: fail now. A request on a socket past its time is cut there, which
   * destroys the socket (the pool opens another). One whose caller left while its time remains is
   * drained instead: it was sent and counted against the upstream budget already, so cutting it
   * would save the upstream nothing and cost the next call a new connection (at a TLS upstream, a
   * handshake too; at a round of abandoned dashboards, hundreds of them).
   */
  private readonly expire = (): void => {
    if (!this.end()) return;
    const error = new AttemptCancelledError();
    const { controller, deadline } = this;
    if (controller && deadline.signal?.aborted && deadline.remainingMs() > 0) {
      this.drain = new Drain(deadline.endsAt, controller);
      this.chunks.length = 0;
    } else {
      controller?.abort(error);
    }
    this.reject(error);
  };

  /** Marks the attempt ended; false if it already was. */
  private end(): boolean {
    if (this.endedAt) return false;
    this.endedAt = performance.now();
    this.unwatch();
    this.buffers.bytes -= this.bytes;
    return true;
  }
}

/**
 * An abandoned answer being read to its end, until the attempt's own time: then it is cut like any
 * other, so a dripping upstream cannot hold the socket longer.
 */
class Drain {
  readonly stop: () => void;

  constructor(endsAt: number, controller: Dispatcher.DispatchController) {
    this.stop = onExpired(deadlineAt(endsAt), () => controller.abort(new AttemptCancelledError()));
  }
}
