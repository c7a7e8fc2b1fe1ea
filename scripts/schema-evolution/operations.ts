// The operations shipped to clients: the persisted-operations manifest (what a gateway with
// PERSISTED_OPERATIONS runs, and what clients send by id) and the example app's operations. Each must
// still validate against the current schema, whatever the inspector thinks of the change: some
// changes it calls safe invalidate a real document (a field made non-null on one union member
// conflicts with the same field on another).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type DocumentNode, type GraphQLError, type GraphQLSchema, Kind, NoDeprecatedCustomRule, parse, validate } from 'graphql';
import { readOperationManifest } from '../../src/persisted/manifest.ts';

interface ShippedOperation {
  /** Where it comes from: the file, and for a manifest entry its operation name and id. */
  source: string;
  document: string;
}

export interface OperationProblem {
  source: string;
  message: string;
}

export function shippedOperations(root: string, manifestFile: string, operationsDirectory: string): ShippedOperation[] {
  const manifest = [...readOperationManifest(join(root, manifestFile))].map(([id, document]) => ({
    source: `${manifestFile} ${operationName(parse(document)) ?? 'anonymous'} (${id.slice(0, 12)}…)`,
    document,
  }));
  const examples = readdirSync(join(root, operationsDirectory))
    .filter((name) => name.endsWith('.graphql'))
    .sort()
    .map((name) => ({ source: `${operationsDirectory}/${name}`, document: readFileSync(join(root, operationsDirectory, name), 'utf8') }));
  return [...manifest, ...examples];
}

/** Errors make an operation invalid; a deprecated field, argument or enum value it uses is only reported. */
export function checkOperations(
  schema: GraphQLSchema,
  operations: readonly ShippedOperation[],
): { invalid: OperationProblem[]; deprecated: OperationProblem[] } {
  const invalid: OperationProblem[] = [];
  const deprecated: OperationProblem[] = [];
  for (const { source, document } of operations) {
    let parsed: DocumentNode;
    try {
      parsed = parse(document);
    } catch (error) {
      invalid.push({ source, message: (error as GraphQLError).message });
      continue;
    }
    const errors = validate(schema, parsed);
    invalid.push(...errors.map((error) => ({ source, message: located(error) })));
    if (errors.length === 0)
      deprecated.push(...validate(schema, parsed, [NoDeprecatedCustomRule]).map((error) => ({ source, message: located(error) })));
  }
  return { invalid, deprecated };
}

function operationName(document: DocumentNode): string | undefined {
  const operation = document.definitions.find((definition) => definition.kind === Kind.OPERATION_DEFINITION);
  return operation?.kind === Kind.OPERATION_DEFINITION ? operation.name?.value : undefined;
}

function located(error: GraphQLError): string {
  const at = error.locations?.[0];
  return at ? `${error.message} (line ${at.line}, column ${at.column})` : error.message;
}
