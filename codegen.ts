// Typed documents (TypedDocumentNode) for the project's own operations, from the committed schema:
// the tests' `graphql()` documents, and the example app's `.graphql` operations with a persisted-
// documents manifest (`examples/generated/persisted-documents.json`, sha256 hashes) that
// PERSISTED_OPERATIONS accepts. `npm run codegen` regenerates them; the test suite fails when stale.
import type { CodegenConfig } from '@graphql-codegen/cli';

const typesConfig = {
  scalars: { UUID: 'string', DateTime: 'string', EmailAddress: 'string', JSON: 'unknown' },
  enumsAsTypes: true,
  useTypeImports: true,
};

const config: CodegenConfig = {
  schema: 'schema.graphql',
  ignoreNoDocuments: true,
  // ESM: relative imports with their extension.
  emitLegacyCommonJSImports: false,
  generates: {
    'test/generated/': {
      documents: ['test/**/*.ts', '!test/generated/**'],
      preset: 'client',
      config: typesConfig,
      presetConfig: { fragmentMasking: false },
    },
    'examples/generated/': {
      documents: ['examples/operations/*.graphql'],
      preset: 'client',
      config: typesConfig,
      presetConfig: { fragmentMasking: false, persistedDocuments: { hashAlgorithm: 'sha256' } },
    },
  },
};

export default config;
