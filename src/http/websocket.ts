// GraphQL over WebSocket (contract: GraphQL over WebSocket): graphql-ws's `graphql-transport-ws`
// protocol on the HTTP server's `/graphql`, paired with Yoga as Yoga documents it (`useServer`,
// executing through `yoga.getEnveloped`). Each `subscribe` is one GraphQL request for every plugin:
// it gets a Request of its own (the caller's Authorization, its own id, arrival and deadline, a
// signal that aborts when the operation ends or the socket closes), so the limits, the estimate,
// the upstream budget, admission, persisted operations, the request log, traces and metrics treat
// it as they treat a POST. graphql-ws closes what the contract lists (4400, 4406, 4408, 4409,
// 4429); ws closes a message over MAX_REQUEST_BYTES with 1009.
import type { IncomingMessage, Server } from 'node:http';
import { type ExecutionArgs, GraphQLError } from 'graphql';
import { GRAPHQL_TRANSPORT_WS_PROTOCOL, type SubscribePayload } from 'graphql-ws';
import { useServer } from 'graphql-ws/use/ws';
import type { YogaServerInstance } from 'graphql-yoga';
import { Gauge, type Registry } from 'prom-client';
import { WebSocketServer } from 'ws';
import type { RequestLog } from '../observability/request-log.ts';

interface WebSocketOptions {
  // biome-ignore lint/suspicious/noExplicitAny: the gateway's Yoga instance, whatever its context type
  yoga: Pick<YogaServerInstance<any, any>, 'getEnveloped'>;
  /** The GraphQL endpoint: the only path that upgrades. */
  path: string;
  /** MAX_REQUEST_BYTES: the largest message; a larger one closes the socket with 1009. */
  maxPayload: number;
  /** Notes a request's arrival (its id, deadline and trace); returns its id. */
  arrive(request: Request): string;
  requestLog: Pick<RequestLog, 'begin' | 'answering' | 'end'>;
  /** Persisted operations: the text an id stands for, and whether query text is accepted (not with PERSISTED_OPERATIONS). */
  persisted: { textOf(id: string): string | undefined; acceptsQueryText: boolean };
  registry: Registry;
}

export interface WebSocketEndpoint {
  /** Open sockets (readiness). */
  open(): number;
  /** SIGTERM: no new sockets; each open one is closed with 1001 once its operations completed (subscriptions are completed by the hub). */
  beginShutdown(): void;
}

/** The URL of the Request a WebSocket operation is made as: it never leaves the process. */
const OPERATION_URL = 'http://websocket.invalid/graphql';

/** A socket's caller (the Authorization its operations carry) and its operations running, by id. */
interface SocketContext {
  authorization: string;
  operations: Map<string, AbortController>;
}

export function serveWebSocket(server: Server, options: WebSocketOptions): WebSocketEndpoint {
  const wss = new WebSocketServer({ server, path: options.path, maxPayload: options.maxPayload });
  const sockets = new Map<object, SocketContext>();
  let shuttingDown = false;
  const enveloped = new WeakMap<ExecutionArgs, ReturnType<WebSocketOptions['yoga']['getEnveloped']>>();
  const requests = new WeakMap<ExecutionArgs, Request>();

  new Gauge({
    name: 'gateway_websocket_connections',
    help: 'Open GraphQL over WebSocket connections (graphql-transport-ws).',
    registers: [options.registry],
    collect() {
      this.set(sockets.size);
    },
  });

  const closeIfDrained = (socket: { close(code: number, reason: string): void }, state: SocketContext) => {
    if (shuttingDown && state.operations.size === 0) socket.close(1001, 'Going Away');
  };

  useServer<Record<string, unknown> | undefined, { state: SocketContext }>(
    {
      connectionInitWaitTimeout: 3000,
      onConnect(ctx) {
        const authorization = authorizationOf(ctx.connectionParams, ctx.extra.request);
        // graphql-ws closes the socket with 4403 Forbidden: no operation, no upstream call.
        if (!authorization || shuttingDown) return false;
        const state: SocketContext = { authorization, operations: new Map() };
        ctx.extra.state = state;
        sockets.set(ctx.extra.socket, state);
        return true;
      },
      onClose(ctx) {
        sockets.delete(ctx.extra.socket);
        for (const operation of ctx.extra.state?.operations.values() ?? []) operation.abort();
      },
      onSubscribe(ctx, id, payload) {
        const state = ctx.extra.state as SocketContext;
        const params = paramsOf(payload, options.persisted);
        if (params instanceof GraphQLError) return [params];
        const controller = new AbortController();
        // `accept`: every payload of an incremental answer is a message of its own.
        const request = new Request(OPERATION_URL, {
          method: 'POST',
          headers: { authorization: state.authorization, accept: 'multipart/mixed' },
          signal: controller.signal,
        });
        options.requestLog.begin(request, options.arrive(request));
        const envelope = options.yoga.getEnveloped({ request, params });
        let document: ReturnType<typeof envelope.parse>;
        try {
          document = envelope.parse(params.query);
        } catch (error) {
          return refused(request, error);
        }
        const errors = envelope.validate(envelope.schema, document);
        if (errors.length > 0) return refused(request, errors);
        state.operations.set(id, controller);
        return Promise.resolve(envelope.contextFactory()).then((contextValue) => {
          const args: ExecutionArgs = {
            schema: envelope.schema,
            document,
            operationName: params.operationName,
            variableValues: params.variables,
            contextValue,
          };
          enveloped.set(args, envelope);
          requests.set(args, request);
          return args;
        });
      },
      execute: (args) => (enveloped.get(args) as NonNullable<ReturnType<typeof enveloped.get>>).execute(args),
      subscribe: (args) => (enveloped.get(args) as NonNullable<ReturnType<typeof enveloped.get>>).subscribe(args),
      onNext(_ctx, _id, _payload, args, result) {
        const request = requests.get(args);
        if (request) options.requestLog.answering(request, result);
      },
      onComplete(ctx, id) {
        const state = ctx.extra.state as SocketContext;
        state.operations.get(id)?.abort();
        state.operations.delete(id);
        // graphql-ws sends the operation's `complete` after this callback: the socket closes after it.
        setImmediate(() => closeIfDrained(ctx.extra.socket, state));
      },
      onOperation(_ctx, _id, _payload, args, result) {
        // Logged once the operation's result is ready, as an HTTP answer is; an incremental one
        // (@defer/@stream) once its last payload has left, or the socket closed (src/observability/request-log.ts).
        const request = requests.get(args);
        if (request) options.requestLog.end(request, 200);
        return result;
      },
    },
    wss,
  );
  // After useServer, which sets its own (no subprotocol unless graphql-transport-ws): the client's
  // first choice is accepted, so the handshake completes and graphql-ws closes with 4406 as the
  // contract says; refused at the handshake, a client sees only 1006.
  wss.options.handleProtocols = (protocols) =>
    protocols.has(GRAPHQL_TRANSPORT_WS_PROTOCOL) ? GRAPHQL_TRANSPORT_WS_PROTOCOL : (protocols.values().next().value ?? false);

  /** A subscribe refused before it ran (parse or validation): an `error` message, logged as a 400. */
  const refused = (request: Request, error: unknown) => {
    const errors = (Array.isArray(error) ? error : [error]).map((e) =>
      e instanceof GraphQLError ? e : new GraphQLError('Unexpected error.'),
    );
    options.requestLog.answering(request, { errors });
    options.requestLog.end(request, 400);
    return errors;
  };

  return {
    open: () => sockets.size,
    beginShutdown() {
      shuttingDown = true;
      for (const [socket, state] of sockets) closeIfDrained(socket as { close(code: number, reason: string): void }, state);
    },
  };
}

/** The key: connection_init's `{"Authorization": "Bearer <key>"}`, else the upgrade request's header; undefined without a bearer key. */
function authorizationOf(connectionParams: Record<string, unknown> | undefined, upgrade: IncomingMessage): string | undefined {
  const given = connectionParams?.Authorization ?? connectionParams?.authorization ?? upgrade.headers.authorization;
  return typeof given === 'string' && /^Bearer\s+\S+\s*$/i.test(given) ? given : undefined;
}

interface OperationParams {
  query: string;
  operationName?: string;
  variables?: Record<string, unknown>;
  extensions?: Record<string, unknown>;
}

/** The operation a subscribe names: its text, or a persisted operation's by id (PERSISTED_OPERATIONS runs only those). */
function paramsOf(payload: SubscribePayload, persisted: WebSocketOptions['persisted']): OperationParams | GraphQLError {
  const id = (payload.extensions?.persistedQuery as { sha256Hash?: unknown } | undefined)?.sha256Hash;
  const known = typeof id === 'string' ? persisted.textOf(id) : undefined;
  if (!persisted.acceptsQueryText && known === undefined) {
    return new GraphQLError(
      'This gateway runs only persisted operations (PERSISTED_OPERATIONS is set): send the id of a listed operation.',
      {
        extensions: { code: typeof id === 'string' ? 'PERSISTED_QUERY_NOT_IN_LIST' : 'PERSISTED_QUERY_ONLY' },
      },
    );
  }
  const query = known ?? payload.query;
  if (typeof query !== 'string' || query === '') {
    return new GraphQLError('Send the operation as `query`, or a persisted operation by its id.', { extensions: { code: 'BAD_REQUEST' } });
  }
  return {
    query,
    operationName: payload.operationName ?? undefined,
    variables: payload.variables ?? undefined,
    extensions: payload.extensions ?? undefined,
  };
}
