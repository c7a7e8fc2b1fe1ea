// Drift, seen before a user sees it: every answer the upstream sends through the request transport
// is compared with what the schema reads (src/schema/drift.ts); each difference counts in
// `gateway_upstream_drift_total`, and the first of each (type, field, kind) in this process is one
// warn line. Actions are not compared: their answers are not records of the collection.
import type { GraphQLSchema } from 'graphql';
import type { Logger } from '../observability/logger.ts';
import type { GatewayMetrics } from '../observability/metrics.ts';
import type { UpstreamTransport } from '../upstream/transport/transport.ts';
import { driftOf, readFieldsOf, recordsOf, recordTypeOfRoute } from './drift.ts';

/** Warn lines kept apart at most: an upstream that sends ever new fields cannot grow this set past it. */
const MAX_WARNED = 1000;

type DriftWatch = (route: string, answer: unknown) => void;

export function createDriftWatch(
  schema: GraphQLSchema,
  sinks: { metrics: Pick<GatewayMetrics, 'observeDrift'>; logger: Logger },
): DriftWatch {
  const read = readFieldsOf(schema);
  const warned = new Set<string>();
  // Routes are templates (`/api/organizations/:id/domains/`), a few dozen: each is matched once.
  const typeOfRoute = new Map<string, string | undefined>();
  return (route, answer) => {
    if (!typeOfRoute.has(route)) typeOfRoute.set(route, recordTypeOfRoute(route));
    const type = typeOfRoute.get(route);
    if (!type) return;
    for (const record of recordsOf(answer)) {
      for (const { type: driftType, field, kind } of driftOf(read, type, record)) {
        sinks.metrics.observeDrift(driftType, field, kind);
        const seen = `${driftType}\u0000${field}\u0000${kind}`;
        if (warned.has(seen) || warned.size >= MAX_WARNED) continue;
        warned.add(seen);
        sinks.logger.warn(
          { drift: { type: driftType, field, kind } },
          `upstream drift: ${driftType}.${field} is ${kind === 'unknown' ? 'sent but not read by the schema' : 'read by the schema but absent'} (${kind})`,
        );
      }
    }
  };
}

/** The transport, with every successful answer shown to the watch (a failing watch never fails a call). */
export function watchingDrift(transport: UpstreamTransport, watch: DriftWatch): UpstreamTransport {
  return {
    request: <T>(req: Parameters<UpstreamTransport['request']>[0]) =>
      transport.request<T>(req).then((response) => {
        if (req.method !== 'DELETE') watch(req.route, response.body);
        return response;
      }),
    close: () => transport.close(),
  };
}
