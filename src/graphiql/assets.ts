// GraphiQL's files, served by the gateway itself: the bundle that `@graphql-yoga/render-graphiql`
// would inline into its page (script, styles, editor workers, favicon) plus our bootstrap script,
// each as a separate file so the page can run under `script-src 'self'`. Loaded on first use: the
// bundle is large, and a process that never serves a browser never reads it.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { promisify } from 'node:util';
import { gzip } from 'node:zlib';

const gzipAsync = promisify(gzip);

/** Where the files are served: `${GRAPHIQL_ASSET_PREFIX}<name>`. */
export const GRAPHIQL_ASSET_PREFIX = '/graphiql/';

/** The editor's web workers, by the label Monaco asks for. */
export const WORKER_FILES = {
  editorWorkerService: 'editor.worker.js',
  json: 'json.worker.js',
  graphql: 'graphql.worker.js',
} as const;

export interface GraphiQLAsset {
  body: Buffer;
  contentType: string;
  /** A hash of the body: versioned URLs carry it, and it is the ETag. */
  hash: string;
  /** Compressed on first request that accepts gzip. */
  gzipped?: Promise<Buffer>;
}

export interface GraphiQLAssets {
  files: ReadonlyMap<string, GraphiQLAsset>;
  /** The versioned URL of a file: cacheable forever, since a new body gets a new URL. */
  url(name: string): string;
}

/** Our own script, next to this module in src/ or dist/ (`npm run build` copies it there). */
const BOOTSTRAP_SCRIPT = new URL('./bootstrap.browser.js', import.meta.url);

/** A loader of the files, read on first use and kept; a failed read is tried again by the next call. */
export function graphiQLAssetLoader(bootstrapScript: URL = BOOTSTRAP_SCRIPT): () => Promise<GraphiQLAssets> {
  let loading: Promise<GraphiQLAssets> | undefined;
  return () => {
    loading ??= load(bootstrapScript).catch((error: unknown) => {
      loading = undefined;
      throw error;
    });
    return loading;
  };
}

async function load(bootstrapScript: URL): Promise<GraphiQLAssets> {
  const bundle = await import('@graphql-yoga/render-graphiql/graphiql');
  const bootstrap = await readFile(bootstrapScript);
  const favicon = fromDataUrl(bundle.favicon);
  const files = new Map<string, GraphiQLAsset>([
    ['graphiql.js', asset(bundle.js, 'text/javascript; charset=utf-8')],
    ['graphiql.css', asset(bundle.css, 'text/css; charset=utf-8')],
    [WORKER_FILES.editorWorkerService, asset(bundle.editorWorkerService, 'text/javascript; charset=utf-8')],
    [WORKER_FILES.json, asset(bundle.jsonWorker, 'text/javascript; charset=utf-8')],
    [WORKER_FILES.graphql, asset(bundle.graphqlWorker, 'text/javascript; charset=utf-8')],
    ['favicon.ico', asset(favicon.body, favicon.contentType)],
    ['bootstrap.js', asset(bootstrap, 'text/javascript; charset=utf-8')],
  ]);
  return {
    files,
    url(name) {
      const file = files.get(name);
      if (!file) throw new Error(`No GraphiQL file named ${name}`);
      return `${GRAPHIQL_ASSET_PREFIX}${name}?v=${file.hash}`;
    },
  };
}

export function gzipped(file: GraphiQLAsset): Promise<Buffer> {
  file.gzipped ??= gzipAsync(file.body, { level: 6 });
  return file.gzipped;
}

function asset(content: string | Buffer, contentType: string): GraphiQLAsset {
  const body = typeof content === 'string' ? Buffer.from(content, 'utf8') : content;
  return { body, contentType, hash: createHash('sha256').update(body).digest('base64url').slice(0, 16) };
}

function fromDataUrl(dataUrl: string): { body: Buffer; contentType: string } {
  const match = /^data:([^;,]+)(;base64)?,(.*)$/s.exec(dataUrl);
  if (!match) throw new Error('render-graphiql: the favicon is not a data: URL');
  const [, contentType, base64, data] = match as unknown as [string, string, string | undefined, string];
  return { contentType, body: base64 ? Buffer.from(data, 'base64') : Buffer.from(decodeURIComponent(data)) };
}
