// The options startReferenceApi takes, and the settings they resolve to. Three settings are switches
// tests may flip on a running server; the server reads them on every request.
import type { ReferenceApiKey } from './auth.ts';
import { demoKeys } from './demo-users.ts';
import type { FaultSettings } from './faults.ts';
import type { GeneratedDataSizes } from './generated-data.ts';

export interface ReferenceApiOptions {
  /** @default 0 (an ephemeral port) */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /** Server-side page cap: `limit = min(limit, maxPageSize)`, the default limit included. @default off */
  maxPageSize?: number;
  /** Action endpoints answer as the live service (true) or as the seed documents them (false). @default false */
  liveShapes?: boolean;
  /** There is no DNS here: this switch decides whether `verify` verifies a domain. @default true */
  domainVerificationPasses?: boolean;
  /** @default the demo keys (labels demo, readOnly, organizationRead, batchExportWrite, noScopes, member, outsider) */
  keys?: ReferenceApiKey[];
  /** Seed the deterministic demo data; false leaves only the users and keys. @default true */
  demoData?: boolean;
  /** The clock every written timestamp and invite expiry uses. @default () => new Date() */
  now?: () => Date;
  /** Also seed organizations of the demo user at these sizes (generated-data.ts), after the demo data. @default none */
  generatedData?: GeneratedDataSizes;
  /** A fixed delay and injected faults (faults.ts); `api.faults.configure()` changes them at run time. @default none */
  faults?: Partial<FaultSettings>;
  /** Serve the control endpoints under /__control/ and keep their counters (control.ts). @default false */
  control?: boolean;
  /** Keep every request in `api.requests`; a long-running load (a benchmark) turns it off. @default true */
  recordRequests?: boolean;
  /** Keep each GET's answer until the next write (answer-cache.ts); not for tests that change `api.store` directly. @default false */
  cacheAnswers?: boolean;
}

export interface ReferenceApiSettings {
  port: number;
  host: string;
  /** Off when null, undefined or not positive. */
  maxPageSize: number | null | undefined;
  liveShapes: boolean;
  domainVerificationPasses: boolean;
  demoData: boolean;
  keys: ReferenceApiKey[];
  now: () => Date;
  generatedData: GeneratedDataSizes | undefined;
  control: boolean;
  recordRequests: boolean;
  cacheAnswers: boolean;
}

export function resolveSettings(options: ReferenceApiOptions = {}): ReferenceApiSettings {
  return {
    port: options.port ?? 0,
    host: options.host ?? '127.0.0.1',
    maxPageSize: options.maxPageSize ?? null,
    liveShapes: options.liveShapes ?? false,
    domainVerificationPasses: options.domainVerificationPasses ?? true,
    demoData: options.demoData ?? true,
    keys: (options.keys ?? demoKeys()).map((key) => ({ ...key, scopes: [...key.scopes] })),
    now: options.now ?? (() => new Date()),
    generatedData: options.generatedData,
    control: options.control ?? false,
    recordRequests: options.recordRequests ?? true,
    cacheAnswers: options.cacheAnswers ?? false,
  };
}
