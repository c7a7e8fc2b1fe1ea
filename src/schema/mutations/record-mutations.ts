// The mutations every record type shares, built from a description of the record: create, update
// and delete, and actions (pause, verify, upgrade, ...) that answer the record or not. Each call
// names its mutation in full (MutationNames); the input fields come from a REST input table, and the
// REST body is built from the fields the caller gave (src/schema/rest-fields.ts).
import type { ObjectRef } from '@pothos/core';
import type { GatewayContext } from '../../context.ts';
import type { ResourceLoader } from '../../loaders/resource-loader.ts';
import type { RestBody, RestClient } from '../../upstream/client.ts';
import { globalIdInput } from '../argument-checks.ts';
import type { BuilderTypes } from '../builder.ts';
import { globalId } from '../global-id.ts';
import { inputIdParts } from '../node-registry.ts';
import { type RestInputTable, restBody, restInputFields } from '../rest-fields.ts';
import { defineMutation, type MutationNames } from './define.ts';
import { NotAppliedError, notAppliedFields } from './not-applied.ts';

/** Where a record lives upstream. */
export interface Address {
  /** The organization or project id ('' for organizations). */
  parentId: string;
  /** The REST `id`, as the loaders key it. */
  id: string;
  /** The id REST paths use: the `id`, except a member's user uuid. */
  pathId: string;
}

export interface RecordKind<Raw, R extends Raw> {
  /** The record's GraphQL type: its name is what the input's global ids must be of. */
  ref: ObjectRef<BuilderTypes, R>;
  /** The payload field that carries the record, e.g. `batchExport`. */
  field: string;
  /** For descriptions, e.g. `batch export`. */
  noun: string;
  /** The write scope, e.g. `batch_export:write`. */
  scope: string;
  /** The organization or project the record lives in; organizations have none. */
  parent?: { typeName: 'Organization' | 'Project'; inputField: 'organizationId' | 'projectId'; noun: string };
  loader(context: GatewayContext): ResourceLoader<Raw, R>;
  /** The REST retrieve, for actions whose answer may not carry the record. */
  retrieve?(rest: RestClient, at: Address): Promise<Raw>;
  /** The REST address from the global id's parts (default `[parentId, id]`, or `[id]` without a parent). */
  address?(parts: string[]): Address;
  /** Forgets what else a write to this record can change (e.g. the organization's `memberCount`). */
  afterWrite?(context: GatewayContext, at: Address): void;
}

type PayloadFieldBuilder<Payload> = PothosSchemaTypes.ObjectFieldBuilder<BuilderTypes, Payload>;
type InputFieldBuilder = PothosSchemaTypes.InputFieldBuilder<BuilderTypes, 'InputObject'>;

/** The record's payload field, filled from `{ record }`. */
function recordOutput<Raw, R extends Raw>(t: PayloadFieldBuilder<{ record: R }>, kind: RecordKind<Raw, R>, description: string) {
  // Pothos cannot work out the resolver's return shape for a generic record type.
  return { [kind.field]: t.field({ type: kind.ref, nullable: false, description, resolve: (payload) => payload.record as never }) };
}

function locate<Raw, R extends Raw>(kind: RecordKind<Raw, R>, id: string | number) {
  const parts = inputIdParts(id, 'id', kind.ref.name);
  if (kind.address) return { parts, at: kind.address(parts) };
  const [parentId, recordId] = (kind.parent ? parts : ['', ...parts]) as [string, string];
  return { parts, at: { parentId, id: recordId, pathId: recordId } };
}

const idField = <Raw, R extends Raw>(t: InputFieldBuilder, kind: RecordKind<Raw, R>) =>
  globalIdInput(t, kind.ref.name, `The global id of the ${kind.noun} (its \`id\` field).`);

const missing = (noun: string) => `No ${noun} with this id exists for this key.`;

/**
 * The payload, or NotAppliedError (thrown, so the errors plugin answers it as a union member) when
 * the answer shows a field the caller set was not applied.
 */
function appliedOrNot<R>(input: object, fields: RestInputTable, raw: unknown, record: R): { record: R } {
  const notApplied = notAppliedFields(input, fields, raw);
  if (notApplied.length > 0) throw new NotAppliedError(notApplied, record);
  return { record };
}

/** Makes the request's loaders serve the record as written. */
function remember<Raw, R extends Raw>(kind: RecordKind<Raw, R>, context: GatewayContext, at: Address, record: Raw): R {
  const tagged = kind.loader(context).replace(at.parentId, record);
  kind.afterWrite?.(context, at);
  return tagged;
}

interface CreateOptions<Raw> {
  names: MutationNames;
  description: string;
  fields: RestInputTable;
  send(rest: RestClient, parentId: string, body: RestBody): Promise<Raw>;
}

export function createMutation<Raw, R extends Raw>(kind: RecordKind<Raw, R>, options: CreateOptions<Raw>): void {
  const { parent } = kind;
  defineMutation(options.names, {
    description: options.description,
    scope: kind.scope,
    notFound: parent ? missing(parent.noun) : null,
    notApplied: true,
    inputFields: (t) => ({
      ...(parent && {
        [parent.inputField]: globalIdInput(t, parent.typeName, `The global id of the ${parent.noun} to create it in.`),
      }),
      ...restInputFields(t, options.fields),
    }),
    payloadDescription: `The ${kind.noun} \`${options.names[0]}\` created.`,
    outputFields: (t: PayloadFieldBuilder<{ record: R }>) => recordOutput(t, kind, `The new ${kind.noun}.`),
    resolve: async (input, context) => {
      const given = input as Record<string, string>;
      const parentId = parent ? (inputIdParts(given[parent.inputField] as string, parent.inputField, parent.typeName)[0] as string) : '';
      const body = restBody(input, options.fields);
      const raw = await options.send(context.rest(), parentId, body);
      return appliedOrNot(input, options.fields, raw, remember(kind, context, { parentId, id: '', pathId: '' }, raw));
    },
  });
}

interface UpdateOptions<Raw> {
  names: MutationNames;
  description: string;
  fields: RestInputTable;
  send(rest: RestClient, at: Address, body: RestBody): Promise<Raw>;
}

/** PATCH: only the fields given are sent (`null` included). */
export function updateMutation<Raw, R extends Raw>(kind: RecordKind<Raw, R>, options: UpdateOptions<Raw>): void {
  const [name] = options.names;
  defineMutation(options.names, {
    description: `${options.description} Fields left out are left unchanged; \`null\` is sent as \`null\`.`,
    scope: kind.scope,
    notFound: missing(kind.noun),
    notApplied: true,
    inputFields: (t) => ({ id: idField(t, kind), ...restInputFields(t, options.fields) }),
    payloadDescription: `The ${kind.noun} as \`${name}\` left it.`,
    outputFields: (t: PayloadFieldBuilder<{ record: R }>) => recordOutput(t, kind, `The ${kind.noun} after the change.`),
    resolve: async (input, context) => {
      const { at } = locate(kind, input.id as string);
      const raw = await options.send(context.rest(), at, restBody(input, options.fields));
      return appliedOrNot(input, options.fields, raw, remember(kind, context, at, raw));
    },
  });
}

interface DeleteOptions {
  names: MutationNames;
  description: string;
  send(rest: RestClient, at: Address): Promise<void>;
}

export function deleteMutation<Raw, R extends Raw>(kind: RecordKind<Raw, R>, options: DeleteOptions): void {
  const [name] = options.names;
  defineMutation(options.names, {
    description: options.description,
    scope: kind.scope,
    notFound: missing(kind.noun),
    inputFields: (t) => ({ id: idField(t, kind) }),
    resolve: async (input, context) => {
      const { parts, at } = locate(kind, input.id as string);
      await options.send(context.rest(), at);
      kind.loader(context).forget(at.parentId, at.id);
      kind.afterWrite?.(context, at);
      return { deletedId: globalId(kind.ref.name, ...parts) };
    },
    payloadDescription: `What \`${name}\` removed.`,
    outputFields: (t) => ({
      deletedId: t.id({ nullable: false, description: `The global id of the removed ${kind.noun}.`, resolve: (p) => p.deletedId }),
    }),
  });
}

/** What an action's payload fields read: the record, and the upstream's own answer. */
interface ActionPayload<R> {
  record: R;
  answer: unknown;
}

interface ActionOptions<Answer, R> {
  names: MutationNames;
  description: string;
  /** Body fields the action takes besides `id` (none: no body is sent). */
  fields?: RestInputTable;
  send(rest: RestClient, at: Address, body: RestBody | undefined): Promise<Answer>;
  /** Extra payload fields read from the upstream's answer (e.g. `backfillId`). */
  answerFields?: (t: PayloadFieldBuilder<ActionPayload<R>>) => Record<string, ReturnType<PayloadFieldBuilder<ActionPayload<R>>['field']>>;
}

/**
 * An action on one record. The seed answers the record; the live service may answer something else
 * (`{"paused": true}`, `{"backfill_id": ...}`, source files): then the record is re-read, so the
 * payload always carries it.
 */
export function actionMutation<Raw, R extends Raw, Answer>(kind: RecordKind<Raw, R>, options: ActionOptions<Answer, R>): void {
  const { fields } = options;
  const [name] = options.names;
  const reread = kind.retrieve ? ` When the upstream's answer does not carry the ${kind.noun}, it is read again.` : '';
  defineMutation(options.names, {
    description: `${options.description}${reread}`,
    scope: kind.scope,
    notFound: missing(kind.noun),
    inputFields: (t) => ({ id: idField(t, kind), ...(fields && restInputFields(t, fields)) }),
    payloadDescription: `The ${kind.noun} after \`${name}\`.`,
    outputFields: (t: PayloadFieldBuilder<ActionPayload<R>>) => ({
      ...recordOutput(t, kind, `The ${kind.noun} after the action.`),
      ...options.answerFields?.(t),
    }),
    resolve: async (input, context): Promise<ActionPayload<R>> => {
      const { at } = locate(kind, input.id as string);
      const rest = context.rest();
      const answer = await options.send(rest, at, fields && restBody(input, fields));
      const raw = recordIn<Raw>(answer, at) ?? (await rereadOrFail(kind, rest, at));
      return { record: remember(kind, context, at, raw), answer };
    },
  });
}

/** The answer when it is the record itself (an object with the record's `id`). */
function recordIn<Raw>(answer: unknown, at: Address): Raw | null {
  const isRecord =
    typeof answer === 'object' && answer !== null && !Array.isArray(answer) && String((answer as { id?: unknown }).id) === at.id;
  return isRecord ? (answer as Raw) : null;
}

function rereadOrFail<Raw, R extends Raw>(kind: RecordKind<Raw, R>, rest: RestClient, at: Address): Promise<Raw> {
  if (!kind.retrieve) throw new Error(`${kind.ref.name} has no REST retrieve to re-read it with.`);
  return kind.retrieve(rest, at);
}
