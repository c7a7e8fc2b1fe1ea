// The UpstreamError a transport call fails with; fails the test if the call succeeds or throws anything else.
import { expect } from 'vitest';
import { UpstreamError } from '../../src/upstream/upstream-error.ts';

export async function upstreamFailure(call: Promise<unknown>): Promise<UpstreamError> {
  const error = await call.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(UpstreamError);
  return error as UpstreamError;
}
