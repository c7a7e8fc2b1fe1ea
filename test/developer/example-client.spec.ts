// The example app's typed client (examples/client.ts) does a frontend's first hour against the
// gateway: the dashboard, every batch export page by page with cursors, pausing an export, inviting
// two people at once. As a script against `npm start`'s embedded default, and in-process with
// automatic persisted queries and against a gateway that runs only the codegen manifest.
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { createGatewayClient, firstHour, type PersistedMode } from '../../examples/client.ts';
import { readOperationManifest } from '../../src/persisted/manifest.ts';
import { type Harness, startHarness } from '../support/harness.ts';
import { repositoryRoot, startGatewayProcess } from './gateway-process.ts';

const run = promisify(execFile);
const cleanups: (() => Promise<unknown>)[] = [];
afterAll(() => Promise.all(cleanups.map((cleanup) => cleanup())));

const expectedTour = {
  organizations: ['Hedgehog Analytics', 'Prickly Labs'],
  batchExports: 35,
  pages: 4,
  paused: 'S3 events export 01',
  invited: ['new-hire-1@hedgehog.example', 'new-hire-2@hedgehog.example'],
};

describe('examples/client.ts', () => {
  it('runs as a script against `npm start` with no configuration', async () => {
    const gateway = await startGatewayProcess();
    cleanups.push(() => gateway.stop());
    const { stdout } = await run(process.execPath, ['--import', 'tsx', 'examples/client.ts'], {
      cwd: fileURLToPath(repositoryRoot),
      env: { ...process.env, GATEWAY_URL: gateway.url, GATEWAY_KEY: gateway.demoKey },
    });
    expect(stdout).toContain('Hedgehog Analytics: batch exports 35, members 3, projects 2');
    expect(stdout).toContain('read 35 batch exports in 4 pages of at most 10');
    expect(stdout).toMatch(/paused "S3 events export 01" at \d{4}-/);
    expect(stdout).toContain('unpaused it again (paused: false)');
    expect(stdout).toContain('invited new-hire-1@hedgehog.example, new-hire-2@hedgehog.example');
  });

  it('says what is missing when GATEWAY_KEY is not set', async () => {
    const failure = await run(process.execPath, ['--import', 'tsx', 'examples/client.ts'], {
      cwd: fileURLToPath(repositoryRoot),
      env: { ...process.env, GATEWAY_KEY: '' },
    }).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 2, stderr: expect.stringContaining('Set GATEWAY_KEY') });
  });

  it.each<[PersistedMode, string]>([
    ['apq', 'automatic persisted queries'],
    ['manifest', 'only the manifest codegen wrote (PERSISTED_OPERATIONS)'],
  ])('does the same tour with persisted operations: %s, on a gateway with %s', async (mode) => {
    const h = await startHarness(
      {},
      mode === 'manifest' ? { persistedOperations: readOperationManifest('examples/generated/persisted-documents.json') } : {},
    );
    const url = await listen(h);
    const client = createGatewayClient({ url, key: h.api.keys.demo!, persisted: mode });
    const lines: string[] = [];
    expect(await firstHour(client, (line) => lines.push(line))).toEqual(expectedTour);
    // The export is running again, and the invites are there.
    expect([...h.api.store.batchExports.values()].find((e) => e.name === 'S3 events export 01')?.paused).toBe(false);
    expect([...h.api.store.invites.values()].map((i) => i.target_email)).toEqual(expect.arrayContaining(expectedTour.invited));
  });
});

async function listen(h: Harness): Promise<string> {
  const server: Server = createServer(h.gateway.listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  cleanups.push(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await h.close();
  });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/graphql`;
}
