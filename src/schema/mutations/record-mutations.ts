// The mutations every record type shares, generated from a description of the record: create,
// update and delete, and actions (pause, verify, upgrade, ...) that answer the record or not.
import type { ObjectRef } from '@pothos/core';
import type { GatewayContext } from '../../context.ts';
import type { ResourceLoader } from '../../loaders/resource-loader.ts';
import type { RestBody, RestClient } from '../../rest/client.ts';
import { globalId } from '../global-id.ts';
import { defineMutation } from './define.ts';
import { type InputSpec, idParts, restBody, restInputFields } from './input.ts';

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
  /** The GraphQL type, e.g. `BatchExport`. */
  typeName: string;
  ref: ObjectRef<any, R>;
  /** The payload field: the type name in camelCase. */
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

/** The record's payload field, filled from `{ record }`. */
function recordOutput<R>(kind: RecordKind<any, R>, description: string) {
  return (t: any) => ({
    [kind.field]: t.field({ type: kind.ref, nullable: false, description, resolve: (payload: { record: R }) => payload.record }),
  });
}

function defaultAddress(kind: RecordKind<any, any>, parts: string[]): Address {
  const [parentId, id] = (kind.parent ? parts : ['', ...parts]) as [string, string];
  return { parentId, id, pathId: id };
}

function locate(kind: RecordKind<any, any>, id: string | number) {
  const parts = idParts(id, 'id', kind.typeName);
  return { parts, at: kind.address ? kind.address(parts) : defaultAddress(kind, parts) };
}

const idField = (kind: RecordKind<any, any>) => (t: any) =>
  t.id({ required: true, description: `The global id of the ${kind.noun} (its \`id\` field).` });

const missing = (noun: string) => `No ${noun} with this id exists for this key.`;

/** Makes the request's loaders serve the record as written. */
function remember<Raw, R extends Raw>(kind: RecordKind<Raw, R>, context: GatewayContext, at: Address, record: Raw): R {
  const tagged = kind.loader(context).replace(at.parentId, record);
  kind.afterWrite?.(context, at);
  return tagged;
}

export interface CreateOptions<Raw> {
  description: string;
  fields: InputSpec;
  send(rest: RestClient, parentId: string, body: RestBody): Promise<Raw>;
}

export function createMutation<Raw, R extends Raw>(kind: RecordKind<Raw, R>, options: CreateOptions<Raw>): void {
  const { parent } = kind;
  defineMutation(`create${kind.typeName}`, {
    description: options.description,
    scope: kind.scope,
    notFound: parent ? missing(parent.noun) : null,
    inputFields: (t) => ({
      ...(parent && {
        [parent.inputField]: t.id({ required: true, description: `The global id of the ${parent.noun} to create it in.` }),
      }),
      ...restInputFields(t, options.fields),
    }),
    payloadDescription: `The ${kind.noun} \`create${kind.typeName}\` created.`,
    outputFields: recordOutput(kind, `The new ${kind.noun}.`),
    resolve: async (input, context) => {
      const given = input as Record<string, string>;
      const parentId = parent ? (idParts(given[parent.inputField] as string, parent.inputField, parent.typeName)[0] as string) : '';
      const body = restBody(input, options.fields);
      const raw = await options.send(context.rest(), parentId, body);
      return { record: remember(kind, context, { parentId, id: '', pathId: '' }, raw) };
    },
  });
}

export interface UpdateOptions<Raw> {
  name?: string;
  description: string;
  fields: InputSpec;
  send(rest: RestClient, at: Address, body: RestBody): Promise<Raw>;
}

/** PATCH: only the fields given are sent (`null` included). */
export function updateMutation<Raw, R extends Raw>(kind: RecordKind<Raw, R>, options: UpdateOptions<Raw>): void {
  const name = options.name ?? `update${kind.typeName}`;
  defineMutation(name, {
    description: `${options.description} Fields left out are left unchanged; \`null\` is sent as \`null\`.`,
    scope: kind.scope,
    notFound: missing(kind.noun),
    inputFields: (t) => ({ id: idField(kind)(t), ...restInputFields(t, options.fields) }),
    payloadDescription: `The ${kind.noun} as \`${name}\` left it.`,
    outputFields: recordOutput(kind, `The ${kind.noun} after the change.`),
    resolve: async (input, context) => {
      const { at } = locate(kind, input.id as string);
      const raw = await options.send(context.rest(), at, restBody(input, options.fields));
      return { record: remember(kind, context, at, raw) };
    },
  });
}

export interface DeleteOptions {
  name?: string;
  description: string;
  send(rest: RestClient, at: Address): Promise<void>;
}

export function deleteMutation<Raw, R extends Raw>(kind: RecordKind<Raw, R>, options: DeleteOptions): void {
  const name = options.name ?? `delete${kind.typeName}`;
  defineMutation(name, {
    description: options.description,
    scope: kind.scope,
    notFound: missing(kind.noun),
    inputFields: (t) => ({ id: idField(kind)(t) }),
    resolve: async (input, context) => {
      const { parts, at } = locate(kind, input.id as string);
      await options.send(context.rest(), at);
      kind.loader(context).forget(at.parentId, at.id);
      kind.afterWrite?.(context, at);
      return { deletedId: globalId(kind.typeName, ...parts) };
    },
    payloadDescription: `What \`${name}\` removed.`,
    outputFields: (t) => ({
      deletedId: t.id({ nullable: false, description: `The global id of the removed ${kind.noun}.`, resolve: (p) => p.deletedId }),
    }),
  });
}

export interface ActionOptions<Answer> {
  name: string;
  description: string;
  /** Body fields the action takes besides `id` (none: no body is sent). */
  fields?: InputSpec;
  send(rest: RestClient, at: Address, body: RestBody | undefined): Promise<Answer>;
  /** Extra payload fields read from the upstream's answer (e.g. `backfillId`). */
  answerFields?: (t: any) => Record<string, unknown>;
}

/**
 * An action on one record. The seed answers the record; the live service may answer something else
 * (`{"paused": true}`, `{"backfill_id": ...}`, source files): then the record is re-read, so the
 * payload always carries it.
 */
export function actionMutation<Raw, R extends Raw, Answer>(kind: RecordKind<Raw, R>, options: ActionOptions<Answer>): void {
  const { fields } = options;
  const reread = kind.retrieve ? ` When the upstream's answer does not carry the ${kind.noun}, it is read again.` : '';
  defineMutation(options.name, {
    description: `${options.description}${reread}`,
    scope: kind.scope,
    notFound: missing(kind.noun),
    inputFields: (t) => ({ id: idField(kind)(t), ...(fields && restInputFields(t, fields)) }),
    payloadDescription: `The ${kind.noun} after \`${options.name}\`.`,
    outputFields: (t) => ({ ...recordOutput(kind, `The ${kind.noun} after the action.`)(t), ...options.answerFields?.(t) }),
    resolve: async (input, context) => {
      const { at } = locate(kind, input.id as string);
      const rest = context.rest();
      const answer = await options.send(rest, at, fields && restBody(input, fields));
      const raw = recordIn<Raw>(answer, at) ?? (await rereadOrFail(kind, rest, at));
      return { record: remember(kind, context, at, raw), answer };
    },
  });
}

/** The answer when it is the record itself (an object with the record's `id`). */
export function recordIn<Raw>(answer: unknown, at: Address): Raw | null {
  const isRecord =
    typeof answer === 'object' && answer !== null && !Array.isArray(answer) && String((answer as { id?: unknown }).id) === at.id;
  return isRecord ? (answer as Raw) : null;
}

function rereadOrFail<Raw>(kind: RecordKind<Raw, any>, rest: RestClient, at: Address): Promise<Raw> {
  if (!kind.retrieve) throw new Error(`${kind.typeName} has no REST retrieve to re-read it with.`);
  return kind.retrieve(rest, at);
}
