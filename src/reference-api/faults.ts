// Fault injection: a fixed delay before every answer, and a share of answers replaced by a fault
// drawn from a seeded stream, so a run repeats. Off unless the `faults` option (or the control
// endpoint's config) turns it on. A write is applied before its answer is lost: the client cannot
// tell whether it happened, which is what a retry must be careful about.
import type { ServerResponse } from 'node:http';
import { type EncodedAnswer, encodeJson, sendEncoded } from './http.ts';
import { createIdSource, type IdSource } from './random.ts';
import { WRONG_SHAPES, type WrongShape, wrongShape } from './wrong-shapes.ts';

export const FAULT_KINDS = ['http500', 'drop', 'malformed', 'slow', 'drip', 'wrongShape'] as const;
export type FaultKind = (typeof FAULT_KINDS)[number];
/** Failures of the connection or the server, not of the answer's shape (the default kinds). */
export const CLASSIC_FAULTS: readonly FaultKind[] = ['http500', 'drop', 'malformed', 'slow'];

export interface FaultSettings {
  /** Fixed delay before every answer that is not a fault. @default 0 */
  delayMs: number;
  /** Share of /api answers replaced by a fault, in [0, 1]. @default 0 */
  faultRate: number;
  /**
   * The faults drawn from: `http500` (a 500 error body), `drop` (the connection closed, no answer),
   * `malformed` (the first half of the JSON), `slow` (the answer after `slowMs`), `drip` (200 and
   * its headers at once, then a byte every `dripIntervalMs`), `wrongShape` (well-formed JSON of the
   * wrong shape, wrong-shapes.ts). @default CLASSIC_FAULTS
   */
  faultKinds: FaultKind[];
  /** How late a `slow` fault answers: set it past the client's timeout. @default 1500 */
  slowMs: number;
  /** @default 200 */
  dripIntervalMs: number;
  /** Seed of the stream the faults are drawn from. @default 1 */
  seed: number;
}

const DEFAULT_FAULT_SETTINGS: Readonly<FaultSettings> = {
  delayMs: 0,
  faultRate: 0,
  faultKinds: [...CLASSIC_FAULTS],
  slowMs: 1500,
  dripIntervalMs: 200,
  seed: 1,
};

/** What became of one answer: the fault sent instead, and the status the client saw (none when dropped). */
export interface Delivery {
  fault: FaultKind | null;
  status: number | null;
}

const SERVER_ERROR = { type: 'server_error', code: 'error', detail: 'A server error occurred.', attr: null };

export class FaultInjector {
  readonly settings: FaultSettings;
  private random: IdSource;

  constructor(settings: Partial<FaultSettings> = {}) {
    this.settings = { ...DEFAULT_FAULT_SETTINGS, ...checkedFaultSettings(settings) };
    this.random = randomStream(this.settings.seed);
  }

  /** Changes the settings given (checked first: bad input changes nothing); a new seed restarts the stream. */
  configure(next: unknown): FaultSettings {
    const checked = checkedFaultSettings(next);
    Object.assign(this.settings, checked);
    if (checked.seed !== undefined) this.random = randomStream(checked.seed);
    return this.settings;
  }

  /** Sends `answer`, or the fault drawn for it, after the configured delay. */
  deliver(res: ServerResponse, answer: EncodedAnswer): Delivery {
    const { faultRate, faultKinds, delayMs } = this.settings;
    if (faultRate > 0 && faultKinds.length > 0 && this.random.next() < faultRate) {
      const fault = faultKinds[Math.floor(this.random.next() * faultKinds.length)] as FaultKind;
      return { fault, status: this.inject(fault, res, answer) };
    }
    if (delayMs > 0) setTimeout(() => sendEncoded(res, answer), delayMs);
    else sendEncoded(res, answer);
    return { fault: null, status: answer.status };
  }

  private inject(fault: FaultKind, res: ServerResponse, answer: EncodedAnswer): number | null {
    switch (fault) {
      case 'http500':
        sendEncoded(res, encodeJson(500, SERVER_ERROR));
        return 500;
      case 'drop':
        res.socket?.destroy(); // no answer at all: the connection just goes away
        return null;
      case 'malformed': {
        const cut = answer.body.subarray(0, Math.max(1, Math.floor(answer.body.length / 2)));
        sendEncoded(res, { ...answer, headers: { ...answer.headers, 'content-length': String(cut.length) }, body: cut });
        return answer.status;
      }
      case 'slow':
        setTimeout(() => sendEncoded(res, answer), this.settings.slowMs);
        return answer.status;
      case 'drip':
        this.drip(res, answer);
        return answer.status;
      case 'wrongShape': {
        const shape = WRONG_SHAPES[Math.floor(this.random.next() * WRONG_SHAPES.length)] as WrongShape;
        const wrong = wrongShape(shape, answer);
        sendEncoded(res, wrong);
        return wrong.status;
      }
    }
  }

  /** The status and headers at once, then the body one byte at a time until it is done or the client hangs up. */
  private drip(res: ServerResponse, answer: EncodedAnswer): void {
    res.writeHead(answer.status, answer.headers);
    let sent = 0;
    const timer = setInterval(() => {
      if (res.destroyed || sent >= answer.body.length) {
        clearInterval(timer);
        if (!res.destroyed) res.end();
        return;
      }
      res.write(answer.body.subarray(sent, sent + 1));
      sent += 1;
    }, this.settings.dripIntervalMs);
    res.once('close', () => clearInterval(timer));
  }
}

function randomStream(seed: number): IdSource {
  return createIdSource(`reference-api:faults:${seed}`);
}

/** The settings in `input` that are valid; throws a message naming the first that is not. */
function checkedFaultSettings(input: unknown): Partial<FaultSettings> {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) throw new Error('fault settings must be a JSON object');
  const out: Partial<FaultSettings> = {};
  for (const [name, value] of Object.entries(input)) {
    switch (name) {
      case 'delayMs':
      case 'slowMs':
      case 'dripIntervalMs':
      case 'seed':
        if (!Number.isFinite(value) || (value as number) < 0) throw new Error(`${name} must be a number ≥ 0`);
        out[name] = value as number;
        break;
      case 'faultRate':
        if (!Number.isFinite(value) || (value as number) < 0 || (value as number) > 1)
          throw new Error('faultRate must be a number in [0, 1]');
        out.faultRate = value as number;
        break;
      case 'faultKinds':
        if (!Array.isArray(value) || !value.every((kind) => FAULT_KINDS.includes(kind))) {
          throw new Error(`faultKinds must be a list of ${FAULT_KINDS.join(', ')}`);
        }
        out.faultKinds = [...(value as FaultKind[])];
        break;
      default:
        throw new Error(`unknown fault setting ${JSON.stringify(name)}`);
    }
  }
  return out;
}
