// Reads one series of a gateway's Prometheus metrics, as /metrics renders them.
import type { Gateway } from '../../src/gateway.ts';

/**
 * The value of `series` (a metric name with its labels as rendered, e.g.
 * `gateway_subscription_polls_total{outcome="ok"}`), or 0 when the series is not there yet.
 */
export async function metricValue(gateway: Pick<Gateway, 'metrics'>, series: string): Promise<number> {
  const { body } = await gateway.metrics.render();
  const line = body.split('\n').find((candidate) => candidate.startsWith(`${series} `));
  return line === undefined ? 0 : Number(line.slice(series.length + 1));
}
