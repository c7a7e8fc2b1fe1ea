// The bundled, in-memory reference implementation of the REST interface (the seed).
export type { ReferenceApiOptions } from './options.ts';
export type { RecordedRequest } from './recording.ts';
export { type ScriptedAnswer, USE_ROUTES } from './scripted.ts';
export { type ReferenceApi, startReferenceApi } from './server.ts';
