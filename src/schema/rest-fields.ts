// Plain REST fields become GraphQL fields here, in one place: camelCased per the contract,
// nullable (an upstream null nulls only that field), lists non-null.
import { camelCase } from './naming.ts';

type ScalarName = 'String' | 'Int' | 'Boolean' | 'UUID' | 'DateTime' | 'EmailAddress' | 'JSON';
export type RestFieldSpec = [type: ScalarName | [ScalarName], description: string];

// Pothos' object and interface field builders both have `field`; the loose type lets one helper
// serve both, and the spec's keys are checked against the record type instead.
interface FieldBuilder {
  // biome-ignore lint: Pothos' own option types are too deep to restate here.
  field(options: any): unknown;
}

export function restFields<Record_ extends object>(
  t: FieldBuilder,
  spec: { [K in keyof Record_ & string]?: RestFieldSpec },
): Record<string, never> {
  const fields: Record<string, unknown> = {};
  for (const [restName, [type, description]] of Object.entries(spec) as [string, RestFieldSpec][]) {
    fields[camelCase(restName)] = Array.isArray(type)
      ? t.field({
          type,
          description,
          nullable: { list: false, items: true },
          resolve: (record: Record<string, unknown>) => (record[restName] as unknown[] | null | undefined) ?? [],
        })
      : t.field({ type, description, resolve: (record: Record<string, unknown>) => record[restName] });
  }
  return fields as Record<string, never>;
}
