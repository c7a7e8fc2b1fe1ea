// Text a caller can influence (operation names above all) must not grow what the gateway keeps:
// every metric label goes through a bounded label, and every name a log line records is truncated.
import { truncate } from '../truncate.ts';

/** The value a bounded label takes once it has seen its maximum number of distinct values. */
const OTHER_LABEL = 'other';

export interface LabelBounds {
  /** Longest label value, in UTF-16 units. */
  maxLength: number;
  /** Distinct values kept; later new values count as `other`. */
  maxValues: number;
}

/**
 * A metric label's value mapper: values are truncated, and past `maxValues` distinct ones every new
 * value becomes `other`, so neither one series nor the number of series can grow with what callers
 * send. Values already seen stay themselves.
 */
export function boundedLabel({ maxLength, maxValues }: LabelBounds): (value: string) => string {
  const seen = new Set<string>();
  return (value) => {
    const label = truncate(value, maxLength);
    if (seen.has(label)) return label;
    if (seen.size >= maxValues) return OTHER_LABEL;
    seen.add(label);
    return label;
  };
}
