// Shared by the mutation specs: fresh records arranged in the reference API's store, one mutation
// run with the upstream calls it caused, and the checks every mutation gets (a table per record type
// drives them): the REST call and payload, ValidationError, NotFoundError, scope denial, bad ids.
import { describe, expect, it } from 'vitest';
import type { ReferenceApi } from '../../../src/reference-api/index.ts';
import type { StoredOrganization } from '../../../src/reference-api/stored-records.ts';
import { globalId } from '../../../src/schema/global-id.ts';
import { type Harness, useHarness } from '../../support/harness.ts';
import { sendJson } from '../../support/scripted-answers.ts';

export { globalId };

const DEMO_USER_ID = 1;

/** Both answer shapes of the reference API's action endpoints. */
export const SHAPES = [
  { liveShapes: false, shape: 'seed answer shapes' },
  { liveShapes: true, shape: 'live answer shapes' },
] as const;

// ---- arranging records ----------------------------------------------------------------------------

let counter = 0;
/** A name no other test uses (domains and survey names must be unique). */
export const unique = (prefix: string) => `${prefix}${++counter}`;

/** A new organization the demo user owns, with one project: tests never touch each other's records. */
export function freshOrg(api: ReferenceApi): StoredOrganization {
  return api.store.addOrganization({ name: unique('Scratch org ') }, { owner: DEMO_USER_ID });
}

export function projectIdOf(api: ReferenceApi, org: StoredOrganization): string {
  const team = api.store.teamsOf(org.id)[0];
  if (!team) throw new Error('organization without a project');
  return String(team.project_id);
}

export const orgId = (org: StoredOrganization) => globalId('Organization', org.id);

// ---- running one mutation -------------------------------------------------------------------------

const capitalize = (name: string) => name.charAt(0).toUpperCase() + name.slice(1);

/** The mutation with every member of its result union selected. */
function mutationDocument(name: string, selection: string, notFound = true): string {
  const type = capitalize(name);
  return `mutation Run($input: ${type}Input!) {
    ${name}(input: $input) {
      __typename
      ... on ${type}Payload { clientMutationId ${selection} }
      ... on ValidationError { message field code }
      ${notFound ? '... on NotFoundError { message }' : ''}
    }
  }`;
}

type UpstreamCall = Awaited<ReturnType<Harness['runCounting']>>['calls'][number];

interface MutationRun {
  status: number;
  /** The mutation field's value (null when it failed as a GraphQL error). */
  result: any;
  errors: readonly any[] | undefined;
  calls: UpstreamCall[];
  /** The calls that were not GETs. */
  writes: UpstreamCall[];
}

export async function mutate(
  h: Harness,
  name: string,
  input: object,
  { selection = '', key, notFound = true }: { selection?: string; key?: string | null; notFound?: boolean } = {},
): Promise<MutationRun> {
  const run = await h.runCounting<any, { input: object }>(
    mutationDocument(name, selection, notFound),
    { input },
    key === undefined ? {} : { key },
  );
  const result = (run.data as Record<string, unknown> | null | undefined)?.[name] ?? null;
  return { status: run.status, result, errors: run.errors, calls: run.calls, writes: run.calls.filter((c) => c.method !== 'GET') };
}

function expectValidationError(run: MutationRun, field: string | null, code: string): void {
  expect(run.errors).toBeUndefined();
  expect(run.result).toMatchObject({ __typename: 'ValidationError', field, code });
  expect(run.result.message).toEqual(expect.any(String));
}

function expectNotFoundError(run: MutationRun): void {
  expect(run.errors).toBeUndefined();
  expect(run.result).toEqual({ __typename: 'NotFoundError', message: expect.any(String) });
}

function expectGraphQLError(run: MutationRun, code: string, message?: RegExp | string): void {
  expect(run.result).toBeNull();
  expect(run.errors?.[0]?.extensions?.code).toBe(code);
  if (message !== undefined) expect(run.errors?.[0]?.message).toMatch(message);
}

// ---- the checks every mutation gets ---------------------------------------------------------------

export interface Arranged {
  input: Record<string, unknown>;
  /** The one write the mutation must send. */
  method: 'POST' | 'PATCH' | 'DELETE';
  path: string;
  /** The exact JSON body; undefined when none is sent. */
  body: unknown;
  /** Checks the payload (after `clientMutationId`, which every case checks) and the store. */
  check(payload: any, h: Harness): void;
}

export interface MutationCase {
  name: string;
  /** What to select on the payload. */
  selection: string;
  /** The write scope the readOnly key lacks. */
  scope: string;
  /** False for createOrganization, whose union has no NotFoundError. */
  notFound?: boolean;
  /** Fresh records in the store and the input of a successful call. */
  arrange(h: Harness, live: boolean): Arranged;
  /**
   * An input the reference API answers 400 for, and the error it must become. Absent where the
   * reference API never answers 400 (deletes, pause, unpause): a scripted answer covers those.
   */
  invalid?(h: Harness, live: boolean): { input: Record<string, unknown>; field: string | null; code: string };
  /** An input naming a well-formed id of a record (or parent) that does not exist. */
  missing?(h: Harness): Record<string, unknown>;
  /** An input whose global id is of another type (absent for createOrganization, which takes none). */
  wrongType?(h: Harness): Record<string, unknown>;
  /** PATCH mutations: a field to give a value and one to give `null`, as [input field, REST field]. */
  patch?: { value: [field: string, value: unknown, restField: string]; nulled: [field: string, restField: string] };
}

/**
 * A delete (or removeMember): one DELETE of the record's path, no body, and `deletedId` is the
 * global id it was given; `fresh` arranges the record and says whether the store still holds it.
 */
export function deleteCase(
  name: string,
  scope: string,
  fresh: (h: Harness) => { id: string; path: string; exists(): boolean },
  ids: Required<Pick<MutationCase, 'missing' | 'wrongType'>>,
): MutationCase {
  return {
    name,
    selection: 'deletedId',
    scope,
    arrange: (h) => {
      const { id, path, exists } = fresh(h);
      return {
        input: { id },
        method: 'DELETE',
        path,
        body: undefined,
        check: ({ deletedId }) => {
          expect(deletedId).toBe(id);
          expect(exists()).toBe(false);
        },
      };
    },
    ...ids,
  };
}

/**
 * Starts a harness per answer shape and runs every check of every case against it, then the
 * scripted-answer checks for the cases the reference API never rejects.
 */
export function describeMutations(cases: MutationCase[]): void {
  describeScriptedErrors(cases);
  describe.each(SHAPES)('$shape', ({ liveShapes }) => {
    const harness = useHarness({ liveShapes });

    describe.each(cases)('$name', (c) => {
      const notFound = c.notFound ?? true;
      const run = (input: object, key?: string) => mutate(harness(), c.name, input, { selection: c.selection, key, notFound });

      it('sends exactly one write with the exact body and the caller key, and returns the payload', async () => {
        const h = harness();
        const arranged = c.arrange(h, liveShapes);
        const result = await run({ ...arranged.input, clientMutationId: 'cm-42' });
        expect(result.errors).toBeUndefined();
        expect(result.result.__typename).toBe(`${capitalize(c.name)}Payload`);
        expect(result.result.clientMutationId).toBe('cm-42');
        expect(result.writes).toHaveLength(1);
        const [write] = result.writes;
        expect({ method: write?.method, path: write?.path }).toEqual({ method: arranged.method, path: arranged.path });
        expect(write?.body).toEqual(arranged.body);
        // Every upstream call carries the caller's key, and the write is the first call made.
        expect(result.calls[0]).toBe(write);
        for (const call of result.calls) expect(call.headers.authorization).toBe(`Bearer ${h.api.keys.demo}`);
        arranged.check(result.result, h);
      });

      if (c.invalid) {
        const invalid = c.invalid;
        it('returns ValidationError for an upstream 400, with the input field and the REST code', async () => {
          const h = harness();
          const { input, field, code } = invalid(h, liveShapes);
          const result = await run(input);
          expectValidationError(result, field, code);
          expect(result.writes).toHaveLength(1);
        });
      }

      if (c.missing) {
        const missing = c.missing;
        it('returns NotFoundError for a well-formed id the upstream does not have', async () => {
          const h = harness();
          const result = await run(missing(h));
          expectNotFoundError(result);
          expect(result.writes).toHaveLength(1);
        });
      }

      it(`is FORBIDDEN, naming \`${c.scope}\`, for a key without it`, async () => {
        const h = harness();
        const result = await run(c.arrange(h, liveShapes).input, h.api.keys.readOnly);
        expectGraphQLError(result, 'FORBIDDEN', c.scope);
        expect(result.errors?.[0]?.extensions?.upstreamStatus).toBe(403);
      });

      if (c.wrongType) {
        const wrongType = c.wrongType;
        it('rejects a global id of another type, and a malformed one, as BAD_USER_INPUT with no upstream call', async () => {
          const h = harness();
          const wrong = await run(wrongType(h));
          expectGraphQLError(wrong, 'BAD_USER_INPUT', /must be the id of a/);
          expect(wrong.calls).toEqual([]);
          const input = wrongType(h);
          const idField = Object.keys(input).find((k) => k === 'id' || k.endsWith('Id')) as string;
          const malformed = await run({ ...input, [idField]: 'bm90IGFuIGlk' });
          expectGraphQLError(malformed, 'BAD_USER_INPUT', /not a valid global id/);
          expect(malformed.calls).toEqual([]);
        });
      }

      if (c.patch) {
        const {
          value: [field, value, restField],
          nulled: [nulledField, nulledRestField],
        } = c.patch;
        it('PATCH: sends a given value, sends null as null, and leaves out what the input leaves out', async () => {
          const h = harness();
          const { input } = c.arrange(h, liveShapes);
          const runs = [
            await run({ id: input.id, [field]: value }),
            await run({ id: input.id, [nulledField]: null }),
            await run({ id: input.id }),
          ];
          expect(runs.map((r) => r.writes.map((w) => [w.method, w.body]))).toEqual([
            [['PATCH', { [restField]: value }]],
            [['PATCH', { [nulledRestField]: null }]],
            [['PATCH', {}]],
          ]);
        });
      }
    });
  });
}

/**
 * The reference API never answers these mutations with 400; a scripted answer that does shows the
 * 400 still becomes a ValidationError (and a 404 a NotFoundError) rather than a GraphQL error.
 */
function describeScriptedErrors(cases: MutationCase[]): void {
  const covered = cases.filter((c) => !c.invalid && c.missing);
  if (covered.length === 0) return;
  describe('errors as data from any upstream (a scripted 400 / 404)', () => {
    const harness = useHarness();

    const runScripted = async (c: MutationCase, input: object) => {
      const document = mutationDocument(c.name, c.selection, c.notFound ?? true);
      const { data, errors } = await harness().run<Record<string, any>, { input: object }>(document, { input });
      return { result: data?.[c.name], errors };
    };

    it.each(covered)('$name: 400 -> ValidationError', async (c) => {
      harness().api.answerWith((_req, res) =>
        sendJson(res, 400, { type: 'validation_error', code: 'invalid_input', detail: 'Not allowed now.', attr: 'some_field__inner' }),
      );
      const { result, errors } = await runScripted(c, (c.missing as NonNullable<MutationCase['missing']>)(harness()));
      expect(errors).toBeUndefined();
      expect(result).toEqual({
        __typename: 'ValidationError',
        message: 'Not allowed now.',
        field: 'someField.inner',
        code: 'invalid_input',
      });
    });

    it.each(covered)('$name: 404 -> NotFoundError', async (c) => {
      harness().api.answerWith((_req, res) =>
        sendJson(res, 404, { type: 'invalid_request', code: 'not_found', detail: 'Not found.', attr: null }),
      );
      const { result, errors } = await runScripted(c, (c.missing as NonNullable<MutationCase['missing']>)(harness()));
      expect(errors).toBeUndefined();
      expect(result).toEqual({ __typename: 'NotFoundError', message: expect.any(String) });
    });
  });
}
