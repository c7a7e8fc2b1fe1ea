// A write is never sent twice: a proxy in front of the reference API lets the upstream apply a
// POST, then drops the caller's connection before relaying the answer. The gateway must report
// UPSTREAM_ERROR without sending the POST again.
import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../../support/harness.ts';
import { freshOrg, globalId, mutate, orgId } from './support.ts';

/** Forwards every request; answers GETs, but cuts the connection once the upstream has answered anything else. */
async function startDroppingProxy() {
  let target = '';
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const upstream = httpRequest(`${target}${req.url}`, { method: req.method, headers: req.headers }, (answer) => {
        if (req.method === 'GET') {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
          return;
        }
        answer.resume();
        answer.on('end', () => res.socket?.destroy()); // applied upstream; the caller never hears of it
      });
      upstream.end(Buffer.concat(chunks));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    forwardTo(url: string) {
      target = url;
    },
    close() {
      server.closeAllConnections();
      return new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('a dropped answer to a write', () => {
  let proxy: Awaited<ReturnType<typeof startDroppingProxy>>;
  let h: Harness;
  beforeAll(async () => {
    proxy = await startDroppingProxy();
    h = await startHarness({}, { upstreamUrl: proxy.url });
    proxy.forwardTo(h.api.url);
  });
  afterAll(async () => {
    await h.close();
    await proxy.close();
  });

  it('create: the upstream gets the POST once, holds one new record, and the caller gets UPSTREAM_ERROR', async () => {
    const org = freshOrg(h.api);
    const run = await mutate(h, 'createBatchExport', {
      organizationId: orgId(org),
      name: 'Once only',
      destination: { type: 'S3' },
      interval: 'hour',
    });
    expect(run.result).toBeNull();
    expect(run.errors?.[0]?.extensions?.code).toBe('UPSTREAM_ERROR');
    expect(run.calls.map((c) => `${c.method} ${c.path}`)).toEqual([`POST /api/organizations/${org.id}/batch_exports/`]);
    expect(h.api.store.batchExportsOf(org.id).map((e) => e.name)).toEqual(['Once only']);
  });

  it('action: a backfill whose answer is lost is not triggered again', async () => {
    const org = freshOrg(h.api);
    const record = h.api.store.addBatchExport(org.id, { name: 'Backfilled once' });
    const run = await mutate(h, 'backfillBatchExport', {
      id: globalId('BatchExport', org.id, record.id),
      startAt: '2026-04-01T00:00:00Z',
      endAt: '2026-04-02T00:00:00Z',
    });
    expect(run.errors?.[0]?.extensions?.code).toBe('UPSTREAM_ERROR');
    expect(run.calls.map((c) => c.method)).toEqual(['POST']);
    expect(record.latest_runs).toHaveLength(1);
  });
});
