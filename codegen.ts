// Typed documents (TypedDocumentNode) for the project's own operations, from the committed schema.
// `npm run codegen` regenerates them; the test suite fails when they are stale.
import type { CodegenConfig } from '@graphql-codegen/cli';

const config: CodegenConfig = {
  schema: 'schema.graphql',
  documents: ['test/**/*.ts', '!test/generated/**'],
  ignoreNoDocuments: true,
  // ESM: relative imports with their extension.
  emitLegacyCommonJSImports: false,
  generates: {
    'test/generated/': {
      preset: 'client',
      config: {
        scalars: { UUID: 'string', DateTime: 'string', EmailAddress: 'string', JSON: 'unknown' },
        enumsAsTypes: true,
        useTypeImports: true,
      },
      presetConfig: { fragmentMasking: false },
    },
  },
};

export default config;
