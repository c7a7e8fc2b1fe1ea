// MAX_JSON_DEPTH: how deeply a free-form value (`JSON`, and federation's `_Any`) may nest. What a
// caller sends deeper, in a variable or an inline literal, is BAD_USER_INPUT before anything runs;
// so is a variable nesting deeper than that where no JSON is expected, or one the operation does not
// declare (the idempotency fingerprint and error messages would walk it recursively);
// what the upstream sends deeper fails its field (src/schema/leaf-serializers.ts). Depth is measured
// with an explicit stack, never by recursion: a value nested deeper than the call stack allows
// must be refused, not overflow it on the way (JSON.stringify, graphql-jit and graphql-scalars all recurse).
import {
  type DocumentNode,
  type GraphQLInputType,
  type GraphQLSchema,
  getNamedType,
  getNullableType,
  getOperationAST,
  isInputObjectType,
  isListType,
  Kind,
  type ListValueNode,
  type ObjectValueNode,
  TypeInfo,
  typeFromAST,
  type ValueNode,
  visit,
  visitWithTypeInfo,
} from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { gatewayError } from '../errors/graphql-errors.ts';

/** Scalars that take any JSON value: the only input positions a value can nest in freely. */
const FREE_FORM_SCALARS = new Set(['JSON', '_Any']);

/** Whether a JSON value has objects or arrays nested more than `maxDepth` levels (`{}` is 1). */
export function exceedsDepth(value: unknown, maxDepth: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const containers: object[] = [value];
  const depths: number[] = [1];
  while (containers.length > 0) {
    const container = containers.pop() as Record<string, unknown> | unknown[];
    const depth = depths.pop() as number;
    if (depth > maxDepth) return true;
    const children = Array.isArray(container) ? container : Object.values(container);
    for (const child of children) {
      if (typeof child === 'object' && child !== null) {
        containers.push(child);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/** The same measure for a literal in an operation's text. */
function literalExceedsDepth(literal: ValueNode, maxDepth: number): boolean {
  const containers: (ObjectValueNode | ListValueNode)[] = [];
  const depths: number[] = [];
  const enter = (node: ValueNode, depth: number) => {
    if (node.kind === Kind.OBJECT || node.kind === Kind.LIST) {
      containers.push(node);
      depths.push(depth);
    }
  };
  enter(literal, 1);
  while (containers.length > 0) {
    const container = containers.pop() as ObjectValueNode | ListValueNode;
    const depth = depths.pop() as number;
    if (depth > maxDepth) return true;
    if (container.kind === Kind.LIST) for (const item of container.values) enter(item, depth + 1);
    else for (const field of container.fields) enter(field.value, depth + 1);
  }
  return false;
}

/** Refuses free-form input values nested deeper than `maxDepth`, before validation or execution walks them. */
export function jsonDepthPlugin(maxDepth: number): Plugin {
  const tooDeep = (where: string, extensions: Record<string, unknown>, nodes?: ValueNode) =>
    gatewayError(
      'BAD_USER_INPUT',
      `${where} nests deeper than ${maxDepth} levels, the most this gateway accepts.`,
      { ...extensions, limit: 'maxJsonDepth', maxDepth },
      nodes,
    );

  return {
    // Literals: checked before the validation rules, which would walk them recursively. Yoga caches
    // validation results per document, so a document is checked once.
    onValidate({ validateFn, setValidationFn }) {
      setValidationFn((schema, document, ...rest) => {
        const literal = deepLiteral(schema, document, maxDepth);
        if (literal) return [tooDeep('A JSON value in the operation', {}, literal)];
        return validateFn(schema, document, ...rest);
      });
    },
    // Variables, declared or not: checked before anything reads them (the fan-out estimate, the
    // idempotency fingerprint, graphql-jit's coercion). A few small values: cheap.
    onExecute({ args, setResultAndStopExecution }) {
      if (!args.variableValues) return;
      const definitions = getOperationAST(args.document, args.operationName)?.variableDefinitions ?? [];
      const types = new Map(definitions.map((definition) => [definition.variable.name.value, definition.type]));
      for (const [name, value] of Object.entries(args.variableValues)) {
        const typeNode = types.get(name);
        const type = typeNode && (typeFromAST(args.schema, typeNode) as GraphQLInputType | undefined);
        if (type ? valueTooDeep(value, type, maxDepth) : exceedsDepth(value, maxDepth)) {
          setResultAndStopExecution({ errors: [tooDeep(`A value in \`$${name}\``, { variableName: name })] });
          return;
        }
      }
    },
  };
}

/** The first free-form literal of the document nested deeper than `maxDepth`. */
function deepLiteral(schema: GraphQLSchema, document: DocumentNode, maxDepth: number): ValueNode | undefined {
  const typeInfo = new TypeInfo(schema);
  let found: ValueNode | undefined;
  const check = (node: ObjectValueNode | ListValueNode) => {
    const type = typeInfo.getInputType();
    // A list literal where a list is expected is the list itself: its items are checked one by one.
    if (!type || (node.kind === Kind.LIST && isListType(getNullableType(type)))) return undefined;
    if (!FREE_FORM_SCALARS.has(getNamedType(type).name)) return undefined;
    if (literalExceedsDepth(node, maxDepth)) found ??= node;
    return false; // nothing typed below a free-form value
  };
  visit(document, visitWithTypeInfo(typeInfo, { ObjectValue: check, ListValue: check }));
  return found;
}

/**
 * Whether a variable's value nests deeper than `maxDepth` below the lists and input objects its
 * type expects: a free-form value as deep as it may be, anything else in a scalar's or an unknown
 * field's place (an error, but one that coercion would walk). Recursion follows the variable's type,
 * whose nesting the schema bounds (no input type holds itself).
 */
function valueTooDeep(value: unknown, type: GraphQLInputType, maxDepth: number): boolean {
  if (typeof value !== 'object' || value === null) return false;
  const nullable = getNullableType(type);
  if (isListType(nullable)) {
    const items = Array.isArray(value) ? value : [value]; // a single value stands for a list of one
    return items.some((item) => valueTooDeep(item, nullable.ofType, maxDepth));
  }
  if (isInputObjectType(nullable) && !Array.isArray(value)) {
    const fields = nullable.getFields();
    return Object.entries(value).some(([name, item]) => {
      const field = Object.hasOwn(fields, name) ? fields[name] : undefined;
      return field ? valueTooDeep(item, field.type, maxDepth) : exceedsDepth(item, maxDepth);
    });
  }
  return exceedsDepth(value, maxDepth);
}
