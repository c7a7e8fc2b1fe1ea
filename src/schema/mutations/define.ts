// One Relay mutation with errors as data: `<Name>Input` -> `<Name>Result` (a union of
// `<Name>Payload`, ValidationError, unless the mutation addresses nothing that exists yet,
// NotFoundError, and for creates and updates NotAppliedError), built by the relay plugin's relayMutationField and the errors plugin.
import type { InputFieldMap, InputShapeFromFields, ObjectFieldsShape } from '@pothos/core';
import type { GatewayContext } from '../../context.ts';
import { type BuilderTypes, builder } from '../builder.ts';
import { requiresScope } from '../scopes.ts';
import { asMutationError, NotFoundError, ValidationError } from './errors-as-data.ts';
import { NotAppliedError } from './not-applied.ts';
import { refuseAfterFailure, stopAfterFailure } from './serial.ts';

/**
 * A mutation's four names, each written out where the mutation is declared so it can be found by
 * grep: `['createDomain', 'CreateDomainInput', 'CreateDomainPayload', 'CreateDomainResult']`.
 */
export type MutationNames = readonly [field: string, input: `${string}Input`, payload: `${string}Payload`, result: `${string}Result`];

interface MutationOptions<Fields extends InputFieldMap, Payload extends object> {
  /** What it does, in a sentence; the scope sentence is appended. */
  description: string;
  /** The scope the caller's key needs, e.g. `batch_export:write`. */
  scope: string;
  /** The NotFoundError message; `null` leaves NotFoundError out of the union (createOrganization). */
  notFound: string | null;
  /** Creates and updates: NotAppliedError joins the union (src/schema/mutations/not-applied.ts). */
  notApplied?: boolean;
  inputFields: (t: PothosSchemaTypes.InputFieldBuilder<BuilderTypes, 'InputObject'>) => Fields;
  payloadDescription: string;
  outputFields: ObjectFieldsShape<BuilderTypes, Payload>;
  /** Makes the upstream call(s). Never retried here: the transport sends a write once. */
  resolve(input: InputShapeFromFields<Fields>, context: GatewayContext): Promise<Payload>;
}

export function defineMutation<Fields extends InputFieldMap, Payload extends object>(
  [name, inputName, payloadName, resultName]: MutationNames,
  options: MutationOptions<Fields, Payload>,
): void {
  const scope = requiresScope(options.scope);
  builder.relayMutationField(
    name,
    { name: inputName, description: `The input of \`${name}\`. ${scope}`, inputFields: options.inputFields },
    {
      description: `${options.description} ${scope}`,
      nullable: false,
      errors: {
        types: [ValidationError, ...(options.notFound === null ? [] : [NotFoundError]), ...(options.notApplied ? [NotAppliedError] : [])],
        // The payload itself is the union member, so `clientMutationId` keeps the relay plugin's path.
        directResult: true,
        union: {
          name: resultName,
          description: `\`${payloadName}\` on success, else the error the caller can fix. Other failures are GraphQL errors.`,
        },
      },
      // Pothos cannot follow the generic input and payload shapes through the plugins' option types.
      resolve: (async (_root: unknown, args: { input: InputShapeFromFields<Fields> }, context: GatewayContext) => {
        refuseAfterFailure(context);
        try {
          return await options.resolve(args.input, context);
        } catch (error) {
          const converted = asMutationError(error, options.notFound);
          // An error as data is an answer; any other failure stops the operation's later mutations.
          if (!(converted instanceof ValidationError || converted instanceof NotFoundError || converted instanceof NotAppliedError)) {
            stopAfterFailure(context);
          }
          throw converted;
        } finally {
          // Memoised GETs (check_for_updates, source, responses_count, ...) may be stale after a write.
          context.loaders.forgetOnce();
        }
      }) as never,
    },
    { name: payloadName, description: options.payloadDescription, outputFields: options.outputFields },
  );
}
