// The GraphiQL page over HTTP: a strict Content-Security-Policy, no inline script or style element,
// options in a JSON element, the demo key only when one is given, and its files served by the
// gateway with long-lived caching on versioned URLs. (The browser spec shows it all working.)
import { gunzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Harness, startHarness } from '../support/harness.ts';

const DEMO_KEY = 'phx_demo</script><script>alert(1)</script>';
let demo: Harness;
let real: Harness;

beforeAll(async () => {
  [demo, real] = await Promise.all([startHarness({}, { demoKey: DEMO_KEY }), startHarness()]);
});
afterAll(() => Promise.all([demo.close(), real.close()]));

async function openPage(h: Harness) {
  const response = await h.gateway.yoga.fetch('http://gateway.test/graphql', { headers: { accept: 'text/html' } });
  const html = await response.text();
  const json = /<script type="application\/json" id="graphiql-config">([^<]*)<\/script>/.exec(html)?.[1];
  const config = JSON.parse(json ?? 'null') as { options: Record<string, unknown>; workers: Record<string, string>; styleNonce: string };
  return { response, html, config };
}

function get(h: Harness, path: string, headers: Record<string, string> = {}) {
  return h.gateway.yoga.fetch(`http://gateway.test${path}`, { headers });
}

describe('the GraphiQL page', () => {
  it('has a strict policy: scripts, workers and fetches from the gateway only, styles by nonce', async () => {
    const { response, config } = await openPage(demo);
    expect(response.status).toBe(200);
    const policy = Object.fromEntries(
      (response.headers.get('content-security-policy') ?? '').split('; ').map((d) => [d.split(' ')[0], d.split(' ').slice(1).join(' ')]),
    );
    expect(policy).toEqual({
      'default-src': "'none'",
      'script-src': "'self'",
      'worker-src': "'self'",
      'connect-src': "'self'",
      'style-src': `'self' 'nonce-${config.styleNonce}'`,
      'style-src-attr': "'unsafe-inline'",
      'img-src': "'self' data:",
      'font-src': "'self' data:",
      'manifest-src': "'self'",
      'base-uri': "'none'",
      'form-action': "'none'",
      'frame-ancestors': "'none'",
    });
    expect(config.styleNonce).toMatch(/^[A-Za-z0-9+/]{22}==$/);
    expect((await openPage(demo)).config.styleNonce).not.toBe(config.styleNonce);
    expect(response.headers.get('cache-control')).toBe('no-store');
  });

  it('holds no inline script or style and names no other host', async () => {
    const { html } = await openPage(demo);
    const scripts = html.match(/<script[^>]*>/g) ?? [];
    expect(scripts).toHaveLength(3);
    for (const tag of scripts) expect(tag).toMatch(/ src="\/graphiql\/[\w.]+\?v=[\w-]+"|type="application\/json"/);
    expect(html).not.toMatch(/<style|\sstyle=|\son\w+=/i);
    expect(html).not.toMatch(/https?:\/\//);
    expect(html.length).toBeLessThan(4000);
  });

  it('opens the example query, with the demo key only when one is given, kept safe inside the JSON element', async () => {
    const { html, config } = await openPage(demo);
    expect(config.options.defaultQuery).toContain('query Dashboard');
    expect(JSON.parse(config.options.headers as string)).toEqual({ Authorization: `Bearer ${DEMO_KEY}` });
    expect(html).not.toContain('</script><script>alert');

    const withoutKey = await openPage(real);
    expect(withoutKey.config.options.headers).toBeUndefined();
    expect(withoutKey.html).not.toContain('Authorization');
  });
});

describe('the GraphiQL files', () => {
  it('are served by the gateway, cacheable forever on their versioned URLs', async () => {
    const { html, config } = await openPage(demo);
    const urls = [...html.matchAll(/(?:src|href)="(\/graphiql\/[^"]+)"/g)].map((m) => m[1]!).concat(Object.values(config.workers));
    expect(urls.map((u) => u.split('?')[0]).sort()).toEqual([
      '/graphiql/bootstrap.js',
      '/graphiql/editor.worker.js',
      '/graphiql/favicon.ico',
      '/graphiql/graphiql.css',
      '/graphiql/graphiql.js',
      '/graphiql/graphql.worker.js',
      '/graphiql/json.worker.js',
    ]);
    for (const url of urls) {
      const response = await get(demo, url);
      expect(response.status, url).toBe(200);
      expect(response.headers.get('cache-control'), url).toBe('public, max-age=31536000, immutable');
      expect(response.headers.get('content-type'), url).toMatch(
        url.includes('.css') ? /^text\/css/ : url.includes('.ico') ? /^image\// : /^text\/javascript/,
      );
      expect(response.headers.get('etag'), url).toBe(`"${new URL(url, 'http://x').searchParams.get('v')}"`);
      expect((await response.arrayBuffer()).byteLength, url).toBeGreaterThan(100);
    }
  });

  it('are revalidated on any other URL, answer 304 to a matching ETag, and come gzipped when asked', async () => {
    const plain = await get(demo, '/graphiql/graphiql.css');
    expect(plain.headers.get('cache-control')).toBe('no-cache');
    const etag = plain.headers.get('etag')!;
    const css = await plain.text();
    expect(css).toContain('.graphiql-container');

    const notModified = await get(demo, '/graphiql/graphiql.css', { 'if-none-match': etag });
    expect(notModified.status).toBe(304);

    const gzipped = await get(demo, '/graphiql/graphiql.css', { 'accept-encoding': 'gzip, br' });
    expect(gzipped.headers.get('content-encoding')).toBe('gzip');
    const body = Buffer.from(await gzipped.arrayBuffer());
    expect(body.byteLength).toBeLessThan(css.length);
    expect(gunzipSync(body).toString('utf8')).toBe(css);
    // A weight of 0 refuses gzip (RFC 9110): plain, as for `*` refused; `*` with a weight takes it.
    for (const [acceptEncoding, encoding] of [
      ['gzip;q=0, identity', null],
      ['GZIP; Q=0', null],
      ['br, *;q=0', null],
      ['*', 'gzip'],
      ['identity;q=0.5, gzip;q=0.8', 'gzip'],
    ] as const) {
      const answer = await get(demo, '/graphiql/graphiql.css', { 'accept-encoding': acceptEncoding });
      expect([acceptEncoding, answer.headers.get('content-encoding')]).toEqual([acceptEncoding, encoding]);
    }
  });

  it('answer 404 for an unknown file and 405 for anything but GET or HEAD', async () => {
    expect((await get(demo, '/graphiql/nope.js')).status).toBe(404);
    const post = await demo.gateway.yoga.fetch('http://gateway.test/graphiql/graphiql.js', { method: 'POST' });
    expect(post.status).toBe(405);
  });
});
