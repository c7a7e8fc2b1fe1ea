// The GraphiQL page: a few lines of HTML that load every script and style by URL from the gateway,
// with the options in a JSON element, so it runs offline and under a strict content security policy.
import type { GraphiQLOptions } from 'graphql-yoga';
import { type GraphiQLAssets, WORKER_FILES } from './assets.ts';

/**
 * The page's policy. Scripts, workers, fetches and styles come from the gateway only; fonts and
 * icons inside the stylesheet are data: URLs. The editor adds <style> elements while it runs, which
 * the bootstrap script marks with this response's nonce, and positions its lines with `style`
 * attributes (style-src-attr), so neither needs `'unsafe-inline'` for style elements or any script.
 */
export function contentSecurityPolicy(styleNonce: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    "worker-src 'self'",
    "connect-src 'self'",
    `style-src 'self' 'nonce-${styleNonce}'`,
    "style-src-attr 'unsafe-inline'",
    "img-src 'self' data:",
    "font-src 'self' data:",
    "manifest-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export function renderGraphiQLPage(assets: GraphiQLAssets, options: GraphiQLOptions, styleNonce: string): string {
  const workers = Object.fromEntries(Object.entries(WORKER_FILES).map(([label, file]) => [label, assets.url(file)]));
  const config = { options, workers, styleNonce };
  return `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <meta name="viewport" content="width=device-width, initial-scale=1" />
    <title>${escapeHtml(options.title ?? 'GraphiQL')}</title>
    <link rel="icon" href="${assets.url('favicon.ico')}" />
    <link rel="stylesheet" href="${assets.url('graphiql.css')}" />
  </head>
  <body id="body" class="no-focus-outline">
    <noscript>GraphiQL needs JavaScript. The same URL answers GraphQL over HTTP (GET and POST).</noscript>
    <div id="root"></div>
    <script type="application/json" id="graphiql-config">${jsonForHtml(config)}</script>
    <script src="${assets.url('bootstrap.js')}"></script>
    <script src="${assets.url('graphiql.js')}"></script>
  </body>
</html>
`;
}

/** JSON that cannot end the <script> element it sits in (or open a comment there). */
function jsonForHtml(value: unknown): string {
  return JSON.stringify(value).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}
