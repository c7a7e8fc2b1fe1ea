// The bundled, in-memory reference implementation of the REST interface (the seed).

export type { ReferenceApiKey, ScopeObject } from './auth.ts';
export type { ReferenceApiOptions, ReferenceApiSettings } from './options.ts';
export { type RecordedRequest, type ReferenceApi, startReferenceApi } from './server.ts';
export { ReferenceStore } from './store.ts';
