// At start, one request to the upstream without any key, as /readiness sends it: an UPSTREAM_URL
// that names nothing (a host that does not resolve, a port nobody listens on, a TLS handshake that
// fails) is told in the log at once, instead of by the first query. The gateway starts anyway, and
// readiness is unchanged: the upstream may come up later.
import type { Logger } from '../observability/logger.ts';
import { probeUpstreamOnce, timedOut } from './upstream-probe.ts';

const DNS_CODES = ['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL'];

/** Why the upstream cannot be reached, or undefined when it answered (any status: a 401 is an answer). */
async function probeUpstream(upstreamUrl: string, timeoutMs: number): Promise<{ code: string; reason: string } | undefined> {
  const error = await probeUpstreamOnce(upstreamUrl, timeoutMs, 'start-up probe');
  if (error === undefined) return undefined;
  const { code = '', name } = error as { code?: string; name?: string };
  if (DNS_CODES.includes(code)) return { code, reason: `its host name does not resolve (${code})` };
  if (code === 'ECONNREFUSED') return { code, reason: `the connection was refused: nothing listens there (${code})` };
  if (timedOut(error)) return { code: code || name || '', reason: `it did not answer within ${timeoutMs} ms` };
  if (code === 'EPROTO' || /CERT|TLS|SSL|SIGNED/.test(code)) return { code, reason: `the TLS handshake failed (${code})` };
  return { code, reason: `the request failed (${code || (error as Error).message})` };
}

/** Probes once, and warns when the upstream cannot be reached; never throws. */
export async function warnIfUpstreamUnreachable(upstreamUrl: string, timeoutMs: number, logger: Logger): Promise<void> {
  const failure = await probeUpstream(upstreamUrl, timeoutMs);
  if (!failure) return;
  const { origin } = new URL(upstreamUrl);
  logger.warn(
    { upstream: origin, code: failure.code },
    `the upstream (UPSTREAM_URL, ${origin}) cannot be reached: ${failure.reason}. Starting anyway: queries answer UPSTREAM_ERROR until it can be, and /readiness reports it`,
  );
}
