// Prometheus metrics (prom-client). Each gateway has its own Registry, so tests can build many; the
// process metrics (CPU, memory, event loop, GC) live in one registry per process and are merged in
// at scrape time.
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import { type CircuitState, type GuardedTransport, WHOLE_UPSTREAM } from '../upstream/resilience/circuit-breaker.ts';
import type { UpstreamCall } from '../upstream/transport/request-transport.ts';
import { boundedLabel } from './bounded-label.ts';
import type { OperationSummary } from './request-log.ts';
import { upstreamCallSeries } from './upstream-call-series.ts';

interface MetricsOptions {
  /** Operation names are cut to this many characters. */
  maxOperationNameLength: number;
  /** Distinct values per label; later new values count as `other`. */
  maxLabelValues: number;
}

export interface GatewayMetrics {
  readonly registry: Registry;
  observeOperation(summary: OperationSummary): void;
  observeUpstreamCall(call: UpstreamCall): void;
  /** One upstream record that differs from what the schema reads (src/schema/drift.ts). */
  observeDrift(type: string, field: string, kind: string): void;
  /** Admission control (src/limits/admission.ts): each admission, with its wait, and each refusal, by reason. */
  readonly admission: { admitted(waitedMs: number): void; refused(reason: string): void };
  /** Reads admission control's state at every scrape. */
  trackAdmission(state: () => AdmissionGauges): void;
  /** Follows the circuit breakers' states in `gateway_upstream_circuit_state`. */
  trackCircuit(transport: Pick<GuardedTransport, 'state' | 'onStateChange'>): void;
  /** The text exposition of this gateway's and the process's metrics. */
  render(): Promise<{ contentType: string; body: string }>;
}

/** src/limits' AdmissionState, restated: observability may not import limits. gateway.ts passes admission.state here, so tsc refuses a gauge the state lacks. */
interface AdmissionGauges {
  capacity: number;
  inFlight: number;
  queued: number;
  callers: number;
  topCallerShare: number;
}

const SECONDS_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];
const CIRCUIT_VALUES: Record<CircuitState, number> = { closed: 0, 'half-open': 1, open: 2 };
/** Error codes, methods, route templates and statuses are the gateway's own words, never a caller's;
 * they are bounded like operation names all the same, with room for the longest route template. */
export const GATEWAY_LABEL_MAX_LENGTH = 200;

/** The `operation` label of a request whose key the upstream did not accept (or that had none). */
const UNVERIFIED = 'unverified';

let processRegistry: Registry | undefined;

export function createMetrics(options: MetricsOptions): GatewayMetrics {
  const maxValues = options.maxLabelValues;
  const operationLabel = boundedLabel({ maxLength: options.maxOperationNameLength, maxValues });
  const gatewayBounds = { maxLength: GATEWAY_LABEL_MAX_LENGTH, maxValues };
  const codeLabel = boundedLabel(gatewayBounds);
  const methodLabel = boundedLabel(gatewayBounds);
  const routeLabel = boundedLabel(gatewayBounds);
  const statusLabel = boundedLabel(gatewayBounds);
  const registry = new Registry();
  const registers = [registry];
  const driftFieldLabel = boundedLabel(gatewayBounds);
  const drift = new Counter({
    name: 'gateway_upstream_drift_total',
    help: 'Upstream records that differ from what the schema reads, by GraphQL type, REST field and kind (unknown: a field the schema does not read; missing: one it reads that was absent).',
    labelNames: ['type', 'field', 'kind'],
    registers,
  });
  const operations = new Counter({
    name: 'gateway_graphql_operations_total',
    help: 'GraphQL operations by operation name and outcome (ok, or error when the response carries errors).',
    labelNames: ['operation', 'outcome'],
    registers,
  });
  const operationSeconds = new Histogram({
    name: 'gateway_graphql_operation_duration_seconds',
    help: 'Time from receiving a GraphQL request to its response.',
    labelNames: ['operation', 'outcome'],
    buckets: SECONDS_BUCKETS,
    registers,
  });
  const errors = new Counter({
    name: 'gateway_graphql_errors_total',
    help: 'Errors in GraphQL responses by extensions.code.',
    labelNames: ['code'],
    registers,
  });
  const upstreamCalls = upstreamCallSeries(registry, {
    requests: {
      name: 'gateway_upstream_requests_total',
      help: 'Upstream REST calls by method, route template and status (the HTTP status, or the failure kind when there was none).',
    },
    duration: { name: 'gateway_upstream_request_duration_seconds', help: 'Duration of upstream REST calls, retries included.' },
    upperBounds: SECONDS_BUCKETS,
  });
  const retries = new Counter({
    name: 'gateway_upstream_retries_total',
    help: 'Upstream calls sent again (attempts - 1) by method and route template.',
    labelNames: ['method', 'route'],
    registers,
  });
  const circuit = new Gauge({
    name: 'gateway_upstream_circuit_state',
    help: 'Upstream circuit breakers by route template (`*`: the whole upstream): 0 closed, 1 half-open, 2 open.',
    labelNames: ['route'],
    registers,
  });
  const admitted = new Counter({
    name: 'gateway_admission_admitted_total',
    help: 'GraphQL requests admitted to execution by admission control.',
    registers,
  });
  const refused = new Counter({
    name: 'gateway_admission_refused_total',
    help: 'GraphQL requests refused with OVERLOADED, by reason: wait_too_long (predicted wait over ADMISSION_MAX_WAIT_MS or the deadline), queue_full (the queue is full), deadline (still waiting when too little of its deadline was left), connections (arrived on a connection past MAX_CONNECTIONS).',
    labelNames: ['reason'],
    registers,
  });
  const waitSeconds = new Histogram({
    name: 'gateway_admission_wait_seconds',
    help: 'Time admitted requests waited for admission (0 when there was room at once).',
    buckets: [0, ...SECONDS_BUCKETS],
    registers,
  });
  const reasonLabel = boundedLabel(gatewayBounds);
  return {
    registry,
    admission: {
      admitted(waitedMs) {
        admitted.inc();
        waitSeconds.observe(waitedMs / 1000);
      },
      refused(reason) {
        refused.inc({ reason: reasonLabel(reason) });
      },
    },
    trackAdmission(state) {
      // No per-caller label: callers are keys, and a share per key hash would grow without bound.
      const gauges: [keyof AdmissionGauges, string, string][] = [
        ['capacity', 'gateway_admission_capacity', 'Estimated upstream calls admitted requests may hold at once (ADMISSION_CAPACITY).'],
        ['inFlight', 'gateway_admission_in_flight', 'Estimated upstream calls held by admitted requests now.'],
        ['queued', 'gateway_admission_queued', 'Requests waiting for admission now.'],
        [
          'callers',
          'gateway_admission_callers',
          'Callers (keys, and all anonymous requests as one) with requests admitted or waiting now.',
        ],
        ['topCallerShare', 'gateway_admission_top_caller_share', 'Share (0 to 1) of the calls in flight held by the busiest caller.'],
      ];
      for (const [field, name, help] of gauges) {
        new Gauge({
          name,
          help,
          registers,
          collect() {
            this.set(state()[field]);
          },
        });
      }
    },
    observeOperation(summary) {
      // A caller the upstream has not accepted names no series: made-up keys (or none) would take
      // every label slot, and grow /metrics, for nothing.
      const operation = !summary.keyAccepted ? UNVERIFIED : summary.operation ? operationLabel(summary.operation) : 'anonymous';
      const labels = { operation, outcome: summary.outcome };
      operations.inc(labels);
      operationSeconds.observe(labels, summary.durationMs / 1000);
      for (const code of summary.errorCodes) errors.inc({ code: codeLabel(code) });
    },
    observeUpstreamCall(call) {
      if (call.source) return; // answered by the cache or another request's call: src/upstream-economy/metrics.ts counts those
      const method = methodLabel(call.method);
      const route = routeLabel(call.route);
      upstreamCalls.observe(method, route, statusLabel(String(call.status ?? call.outcome)), call.durationMs / 1000);
      if (call.attempts > 1) retries.inc({ method, route }, call.attempts - 1);
    },
    observeDrift(type, field, kind) {
      drift.inc({ type, field: driftFieldLabel(field), kind });
    },
    trackCircuit(transport) {
      // The whole upstream's series from the start; a route's from its breaker's first change.
      circuit.set({ route: WHOLE_UPSTREAM }, CIRCUIT_VALUES[transport.state()]);
      transport.onStateChange((state, route) => circuit.set({ route: routeLabel(route) }, CIRCUIT_VALUES[state]));
    },
    async render() {
      const merged = Registry.merge([processMetrics(), registry]);
      return { contentType: merged.contentType, body: await merged.metrics() };
    },
  };
}

function processMetrics(): Registry {
  if (!processRegistry) {
    processRegistry = new Registry();
    collectDefaultMetrics({ register: processRegistry });
  }
  return processRegistry;
}
