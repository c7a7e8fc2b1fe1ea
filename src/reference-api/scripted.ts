// A test's own answer in place of the routes': the odd upstream answers (a chosen status, a body cut
// short, a wrong shape) that a test needs exactly. Set in-process only (`api.answerWith`): no endpoint
// or option turns it on, so `npm start` never serves one.
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RecordedRequest } from './recording.ts';

/** What a scripted answer returns to let the reference routes answer this request after all. */
export const USE_ROUTES = Symbol('use the reference routes');

/** Answers on `res`; any return value but USE_ROUTES is ignored (so `res.writeHead(...).end()` is a body). */
export type ScriptedAnswer = (req: RecordedRequest, res: ServerResponse, raw: IncomingMessage) => unknown;
