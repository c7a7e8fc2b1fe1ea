// GraphiQL at the GraphQL endpoint, rendered by Yoga, with its files served by the gateway under
// /graphiql/ (never from a CDN) and a strict Content-Security-Policy on the page.
import { randomBytes } from 'node:crypto';
import type { GraphiQLOptions, Plugin } from 'graphql-yoga';
import { GRAPHIQL_ASSET_PREFIX, type GraphiQLAssets, graphiQLAssetLoader, gzipped } from './assets.ts';
import { contentSecurityPolicy, renderGraphiQLPage } from './page.ts';

interface GraphiQLSettings {
  title: string;
  /** The first tab's operation. */
  defaultQuery: string;
  /** Filled into the headers editor: only for the embedded demo API, never for a real upstream. */
  demoKey?: string;
  /** Where the gateway's own script is read. @default src/graphiql/bootstrap.browser.js (dist/ when built; tests point it elsewhere) */
  bootstrapScript?: URL;
}

/** The options Yoga hands to the renderer, plus this response's style nonce. */
type PageOptions = GraphiQLOptions & { styleNonce?: string };

interface LocalGraphiQL {
  /** Yoga's `graphiql` option: the options for each page view (each gets its own nonce). */
  options: (request: Request) => PageOptions;
  /** Yoga's `renderGraphiQL` option. */
  render: (options?: GraphiQLOptions) => Promise<string>;
  /** Serves the files and puts the policy on the page. */
  plugin: Plugin;
}

export function createLocalGraphiQL(settings: GraphiQLSettings): LocalGraphiQL {
  const base: GraphiQLOptions = {
    title: settings.title,
    defaultQuery: settings.defaultQuery,
    headers: settings.demoKey ? JSON.stringify({ Authorization: `Bearer ${settings.demoKey}` }, null, 2) : undefined,
    shouldPersistHeaders: false,
  };
  const loadAssets = graphiQLAssetLoader(settings.bootstrapScript);
  const nonces = new WeakMap<Request, string>();
  return {
    options(request) {
      const styleNonce = randomBytes(16).toString('base64');
      nonces.set(request, styleNonce);
      return { ...base, styleNonce };
    },
    async render(options = {}) {
      const { styleNonce, ...pageOptions } = options as PageOptions;
      return renderGraphiQLPage(await loadAssets(), pageOptions, styleNonce ?? '');
    },
    plugin: {
      onRequest({ request, url, endResponse, fetchAPI }) {
        if (!url.pathname.startsWith(GRAPHIQL_ASSET_PREFIX)) return;
        return serveAsset(request, url, fetchAPI.Response, loadAssets).then(endResponse);
      },
      onResponse({ request, response }) {
        const styleNonce = nonces.get(request);
        if (styleNonce === undefined || !response.headers.get('content-type')?.startsWith('text/html')) return;
        response.headers.set('content-security-policy', contentSecurityPolicy(styleNonce));
        response.headers.set('x-content-type-options', 'nosniff');
        response.headers.set('referrer-policy', 'no-referrer');
        // The page may carry the demo key, and its nonce must not be reused.
        response.headers.set('cache-control', 'no-store');
      },
    },
  };
}

async function serveAsset(
  request: Request,
  url: URL,
  Response: typeof globalThis.Response,
  loadAssets: () => Promise<GraphiQLAssets>,
): Promise<Response> {
  if (request.method !== 'GET' && request.method !== 'HEAD') {
    return new Response(null, { status: 405, headers: { allow: 'GET, HEAD' } });
  }
  const assets = await loadAssets();
  const file = assets.files.get(url.pathname.slice(GRAPHIQL_ASSET_PREFIX.length));
  if (!file) return new Response('Not found', { status: 404, headers: { 'content-type': 'text/plain' } });

  const etag = `"${file.hash}"`;
  const headers: Record<string, string> = {
    'content-type': file.contentType,
    etag,
    vary: 'accept-encoding',
    'x-content-type-options': 'nosniff',
    // A versioned URL never changes its body; any other URL of the file must be revalidated.
    'cache-control': url.searchParams.get('v') === file.hash ? 'public, max-age=31536000, immutable' : 'no-cache',
  };
  if (request.headers.get('if-none-match') === etag) return new Response(null, { status: 304, headers });
  let body = file.body;
  if (acceptsGzip(request.headers.get('accept-encoding'))) {
    body = await gzipped(file);
    headers['content-encoding'] = 'gzip';
  }
  headers['content-length'] = String(body.byteLength);
  return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), { status: 200, headers });
}

/** Whether `Accept-Encoding` takes gzip: named, or `*`, with a weight above 0 (`gzip;q=0` refuses it, RFC 9110 12.5.3). */
function acceptsGzip(acceptEncoding: string | null): boolean {
  const weights = new Map<string, number>();
  for (const entry of (acceptEncoding ?? '').toLowerCase().split(',')) {
    const [coding = '', ...parameters] = entry.split(';').map((part) => part.trim());
    const q = parameters.find((parameter) => parameter.startsWith('q='));
    weights.set(coding, q === undefined ? 1 : Number(q.slice(2)) || 0);
  }
  return (weights.get('gzip') ?? weights.get('*') ?? 0) > 0;
}
