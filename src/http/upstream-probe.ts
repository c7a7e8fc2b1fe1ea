// One request to the upstream without any key, as /readiness and the start-up probe send it:
// `GET /api/organizations/` under UPSTREAM_URL's path. Any answer, a 401 or a 5xx included, means
// the upstream can be reached; no caller's key is ever sent.
import { type Dispatcher, getGlobalDispatcher } from 'undici';

/** Resolves undefined when the upstream answered within `timeoutMs`, else with the error. `purpose` names the probe in its User-Agent. */
export async function probeUpstreamOnce(
  upstreamUrl: string,
  timeoutMs: number,
  purpose: string,
  dispatcher: Dispatcher = getGlobalDispatcher(),
): Promise<unknown> {
  const base = new URL(upstreamUrl);
  try {
    const response = await dispatcher.request({
      origin: base.origin,
      path: `${base.pathname.replace(/\/+$/, '')}/api/organizations/`,
      method: 'GET',
      headers: { accept: 'application/json', 'user-agent': `org-graphql-gateway/0.1 (${purpose})` },
      signal: AbortSignal.timeout(timeoutMs),
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    });
    await response.body.dump();
    return undefined;
  } catch (error) {
    return error ?? new Error('the probe failed');
  }
}

/** Whether the probe's error is its time running out (its own signal, or undici's connect, headers or body timeout). */
export function timedOut(error: unknown): boolean {
  const { code, name } = error as { code?: string; name?: string };
  return name === 'TimeoutError' || /TIMEOUT/.test(String(code));
}
