// This subgraph's SDL as a composition tool fetches it: `_service { sdl }` over HTTP, which needs no key.
import { type DocumentNode, type ExecutionResult, parse } from 'graphql';

export async function fetchSubgraphSdl(url: string): Promise<DocumentNode> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ query: '{ _service { sdl } }' }),
  });
  const { data } = (await response.json()) as ExecutionResult<{ _service: { sdl: string } }>;
  return parse(data?._service.sdl ?? '');
}
