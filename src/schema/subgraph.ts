// The schema the gateway serves: the public schema as an Apollo Federation v2 subgraph, with
// `_service` and `_entities`. Every Node type is an entity by `id`, Organization also by
// `databaseId`; representations load through the request's loaders, so a batch of them costs what
// `nodes(ids:)` would. schema.graphql stays the public schema (src/schema/print.ts).
import { printSubgraphSchema } from '@apollo/subgraph';
import { type GraphQLFieldResolver, type GraphQLUnionType, isScalarType } from 'graphql';
import { gatewayError } from '../errors/graphql-errors.ts';
import type { FanOut, LookupCall } from '../limits/fan-out.ts';
import { isUuid } from '../wire/uuid.ts';
import { builder } from './builder.ts';
import './index.ts'; // every type and field is registered before the entities are declared
import { globalId } from './global-id.ts';
import { loadNode, lookupCallOf, parseNodeId } from './node-registry.ts';
import {
  BatchExportRef,
  BatchExportRunRef,
  DomainRef,
  InviteRef,
  MemberRef,
  OrganizationRef,
  PipelineDestinationRef,
  PipelineFrontendAppRef,
  PipelineImportAppRef,
  ProjectRef,
  SurveyRef,
} from './refs.ts';
import { refuseVariables } from './scalars.ts';

/** The Federation spec version `@link`ed from the subgraph SDL. */
const FEDERATION_SPEC_URL = 'https://specs.apollo.dev/federation/v2.9';

const byId = builder.selection<{ id: string }>('id');
const byDatabaseId = builder.selection<{ databaseId: string }>('databaseId');

/**
 * A representation's global id loads like `node(id:)`. It must be an id of the representation's
 * own type; a bad one fails only its entry (BAD_USER_INPUT, no upstream call). Async, so a throw
 * nulls that entry instead of the whole `_entities` list.
 */
const loadRepresentation = async (typename: string, id: unknown, context: Parameters<typeof loadNode>[1]) =>
  loadNode(parseNodeId(String(id), 'id', [typename]), context) as never;

builder.asEntity(OrganizationRef, {
  key: [byId, byDatabaseId],
  resolveReference: async (reference, context) => {
    if ('id' in reference && reference.id !== undefined) return loadRepresentation('Organization', reference.id, context);
    const { databaseId } = reference as { databaseId?: unknown };
    if (!isUuid(databaseId)) {
      throw gatewayError('BAD_USER_INPUT', '`databaseId` of an Organization representation must be a UUID.', {
        argumentName: 'databaseId',
      });
    }
    return context.loaders.organizations.byId('', databaseId.toLowerCase());
  },
});

const NESTED_ENTITIES = [
  [BatchExportRef, 'BatchExport'],
  [BatchExportRunRef, 'BatchExportRun'],
  [DomainRef, 'Domain'],
  [InviteRef, 'Invite'],
  [MemberRef, 'Member'],
  [PipelineDestinationRef, 'PipelineDestination'],
  [PipelineFrontendAppRef, 'PipelineFrontendApp'],
  [PipelineImportAppRef, 'PipelineImportApp'],
  [ProjectRef, 'Project'],
  [SurveyRef, 'Survey'],
] as const;

for (const [ref, typename] of NESTED_ENTITIES) {
  builder.asEntity(ref, {
    key: byId,
    resolveReference: (reference, context) => loadRepresentation(typename, reference.id, context),
  });
}

export const subgraphSchema = builder.toSubGraphSchema({
  linkUrl: FEDERATION_SPEC_URL,
  federationDirectives: ['@key', '@cost', '@listSize'],
});

type EntitiesResolver = GraphQLFieldResolver<unknown, unknown, { representations: readonly unknown[] }>;

/**
 * @apollo/subgraph's resolver throws for the whole list when one representation is not an object
 * with the `__typename` of an entity type (`Nope`, `constructor`, `{}`). Here such a representation
 * fails alone: its entry is null with BAD_USER_INPUT, and the others resolve as before. An Error
 * as a list item is a located error of that item (graphql-js and graphql-jit alike).
 */
function eachRepresentationAlone(resolve: EntitiesResolver, entityTypes: ReadonlySet<string>): EntitiesResolver {
  const isEntity = (representation: unknown) => {
    const typename = (representation as { __typename?: unknown } | null)?.__typename;
    return (
      typeof representation === 'object' && !Array.isArray(representation) && typeof typename === 'string' && entityTypes.has(typename)
    );
  };
  const message = `A representation must be an object whose \`__typename\` is an entity type: ${[...entityTypes].join(', ')}.`;
  const notAnEntity = () => gatewayError('BAD_USER_INPUT', message, { argumentName: 'representations' });
  return (source, args, context, info) => {
    const entities = args.representations.map(isEntity);
    const valid = args.representations.filter((_, index) => entities[index]);
    const resolved = valid.length > 0 ? (resolve(source, { representations: valid }, context, info) as unknown[]) : [];
    let next = 0;
    return entities.map((entity) => (entity ? resolved[next++] : notAnEntity()));
  };
}

// The plugin builds `_entities` itself; like `nodes(ids:)`, each representation costs the lookup of
// its id, and the fan-out budget (src/limits/fan-out.ts) must count them.
const entitiesField = subgraphSchema.getQueryType()?.getFields()._entities;
const entitiesFanOut: FanOut = {
  lookups: ({ representations }) => (Array.isArray(representations) ? representations.map(representationLookup) : []),
};
if (entitiesField) {
  const entityTypes = new Set((subgraphSchema.getType('_Entity') as GraphQLUnionType).getTypes().map((type) => type.name));
  Object.assign(entitiesField, {
    extensions: { ...entitiesField.extensions, fanOut: entitiesFanOut },
    resolve: eachRepresentationAlone(entitiesField.resolve as EntitiesResolver, entityTypes),
  });
}

// A representation written as a literal with a variable inside (`[{ __typename: "BatchExport", id: $id }]`)
// would lose the variable's value in graphql-jit (and print a warning to stderr): refused as the
// JSON scalar refuses one. Routers send representations as one variable, which is never refused.
const anyScalar = subgraphSchema.getType('_Any');
if (isScalarType(anyScalar)) {
  const parseLiteral = anyScalar.parseLiteral.bind(anyScalar);
  anyScalar.parseLiteral = (ast, variables) => {
    refuseVariables(ast, 'A representation literal cannot hold a variable: pass the representations as one variable.');
    return parseLiteral(ast, variables);
  };
}

function representationLookup(representation: unknown, index: number): LookupCall | null {
  const { __typename, id, databaseId } = (representation ?? {}) as Record<string, unknown>;
  // One the gateway cannot resolve makes no call, but its error costs the gateway as much: it counts
  // one, so MAX_UPSTREAM_CALLS bounds a list of them too (34,000 `{}` in 100 KB answered 11 MB of
  // errors without a key).
  const unresolvable: LookupCall = { key: `unresolvable ${index}`, scan: false };
  if (typeof __typename !== 'string') return unresolvable;
  // An Organization by its REST id costs what it does by its global id.
  const lookedUp = id === undefined && __typename === 'Organization' ? globalId('Organization', String(databaseId)) : id;
  return lookupCallOf(lookedUp, __typename, unresolvable);
}

/** What `_service { sdl }` answers, as committed in subgraph.graphql. */
export function printSubgraphSdl(): string {
  return `${printSubgraphSchema(subgraphSchema)}\n`;
}
