// The `cacheAnswers` option: each GET's encoded answer kept per key, host and URL until the next
// write, so a benchmark's upstream spends its CPU on the wire, not on serializing the same records
// again (it serves ~17,000 calls/s when the floor runs at full speed). Only for a server whose state
// changes through its API alone: a test that changes `api.store` directly would read stale answers.
import type { EncodedAnswer } from './http.ts';

/** More distinct URLs than a benchmark asks for; past it the cache starts over rather than grow. */
const MAX_ENTRIES = 10_000;

export class AnswerCache {
  private readonly answers = new Map<string, EncodedAnswer>();

  static keyOf(authorization: string | undefined, host: string | undefined, target: string): string {
    return `${authorization ?? ''}\n${host ?? ''}\n${target}`;
  }

  get(key: string): EncodedAnswer | undefined {
    return this.answers.get(key);
  }

  set(key: string, answer: EncodedAnswer): void {
    if (this.answers.size >= MAX_ENTRIES) this.answers.clear();
    this.answers.set(key, answer);
  }

  /** Any write may change any answer (a paused export shows in its organization's lists). */
  clear(): void {
    this.answers.clear();
  }
}
