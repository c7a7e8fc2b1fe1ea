// The bundled, in-memory reference implementation of the REST interface (the seed).
export type { ReferenceApiOptions } from './options.ts';
export { type ReferenceApi, startReferenceApi } from './server.ts';
