// A tiny OTLP/HTTP trace receiver on a loopback port, as a collector would be: it accepts
// `POST /v1/traces` in both encodings (http/json and http/protobuf, decoded with protobufjs from the
// part of OpenTelemetry's .proto files a span needs) and keeps each export's raw bytes and headers,
// so tests can read the spans and search every byte that left the gateway.
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import protobuf from 'protobufjs';

/** A span as the receiver decoded it, from either encoding: ids in lower-case hex, attributes as plain values. */
export interface ReceivedSpan {
  traceId: string;
  spanId: string;
  /** '' for a root span. */
  parentSpanId: string;
  traceState: string;
  name: string;
  /** OTLP's SpanKind: 2 SERVER, 3 CLIENT. */
  kind: number;
  attributes: Record<string, unknown>;
  /** OTLP's StatusCode: 0 UNSET, 1 OK, 2 ERROR. */
  statusCode: number;
  /** `service.name` of the span's resource. */
  serviceName: unknown;
}

interface ReceivedExport {
  contentType: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

export interface OtlpReceiver {
  /** `http://127.0.0.1:<port>`: an OTEL_EXPORTER_OTLP_ENDPOINT (the exporter adds `/v1/traces`). */
  url: string;
  exports: ReceivedExport[];
  spans(): ReceivedSpan[];
  close(): Promise<void>;
}

// From opentelemetry-proto (trace/v1/trace.proto, common/v1/common.proto, collector/trace/v1):
// only the fields the tests read; protobufjs skips the others.
const PROTO = `
syntax = "proto3";
message ExportTraceServiceRequest { repeated ResourceSpans resource_spans = 1; }
message ResourceSpans { Resource resource = 1; repeated ScopeSpans scope_spans = 2; }
message Resource { repeated KeyValue attributes = 1; }
message ScopeSpans { repeated Span spans = 2; }
message Span {
  bytes trace_id = 1; bytes span_id = 2; string trace_state = 3; bytes parent_span_id = 4;
  string name = 5; int32 kind = 6; repeated KeyValue attributes = 9; Status status = 15;
}
message Status { string message = 2; int32 code = 3; }
message KeyValue { string key = 1; AnyValue value = 2; }
message AnyValue {
  oneof value { string string_value = 1; bool bool_value = 2; int64 int_value = 3; double double_value = 4; ArrayValue array_value = 5; }
}
message ArrayValue { repeated AnyValue values = 1; }
`;
const ExportRequest = protobuf.parse(PROTO, { keepCase: false }).root.lookupType('ExportTraceServiceRequest');

/** The JSON shape of an export, which protobufjs' `toObject` gives for the binary one too. */
interface ExportJson {
  resourceSpans?: {
    resource?: { attributes?: KeyValue[] };
    scopeSpans?: {
      spans?: {
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        traceState?: string;
        name: string;
        kind: number;
        attributes?: KeyValue[];
        status?: { code?: number };
      }[];
    }[];
  }[];
}
interface KeyValue {
  key: string;
  value: AnyValue;
}
interface AnyValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: number | string;
  doubleValue?: number;
  arrayValue?: { values?: AnyValue[] };
}

export async function startOtlpReceiver(): Promise<OtlpReceiver> {
  const exports: ReceivedExport[] = [];
  const server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (req.method !== 'POST' || req.url !== '/v1/traces') return void res.writeHead(404).end();
    const contentType = req.headers['content-type'] ?? '';
    exports.push({ contentType, headers: req.headers, body: Buffer.concat(chunks) });
    if (contentType.startsWith('application/x-protobuf')) {
      res.writeHead(200, { 'content-type': 'application/x-protobuf' }).end(); // an empty ExportTraceServiceResponse
    } else {
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports,
    spans: () => exports.flatMap(decode),
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function decode({ contentType, body }: ReceivedExport): ReceivedSpan[] {
  const binary = contentType.startsWith('application/x-protobuf');
  const request = binary
    ? (ExportRequest.toObject(ExportRequest.decode(body), { bytes: String, longs: Number, defaults: false }) as ExportJson)
    : (JSON.parse(body.toString('utf8')) as ExportJson);
  // The JSON encoding writes ids in hex; protobufjs writes bytes in base64.
  const id = (value: string | undefined) => (binary ? Buffer.from(value ?? '', 'base64').toString('hex') : (value ?? ''));
  return (request.resourceSpans ?? []).flatMap((resourceSpans) => {
    const serviceName = attributes(resourceSpans.resource?.attributes)['service.name'];
    return (resourceSpans.scopeSpans ?? []).flatMap((scope) =>
      (scope.spans ?? []).map((span) => ({
        traceId: id(span.traceId),
        spanId: id(span.spanId),
        parentSpanId: id(span.parentSpanId),
        traceState: span.traceState ?? '',
        name: span.name,
        kind: span.kind,
        attributes: attributes(span.attributes),
        statusCode: span.status?.code ?? 0,
        serviceName,
      })),
    );
  });
}

function attributes(list: KeyValue[] = []): Record<string, unknown> {
  return Object.fromEntries(list.map(({ key, value }) => [key, plain(value)]));
}

function plain(value: AnyValue): unknown {
  if (value.arrayValue) return (value.arrayValue.values ?? []).map(plain);
  if (value.intValue !== undefined) return Number(value.intValue);
  return value.stringValue ?? value.boolValue ?? value.doubleValue;
}
