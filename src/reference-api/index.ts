// The bundled, in-memory reference implementation of the REST interface (the seed).
export { startReferenceApi, type RecordedRequest, type ReferenceApi } from './server.ts';
export type { ReferenceApiOptions, ReferenceApiSettings } from './options.ts';
export type { ReferenceApiKey, ScopeObject } from './auth.ts';
export { ReferenceStore } from './store.ts';
