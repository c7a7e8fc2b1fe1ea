// Names for the call frames of V8's CPU and heap profiles: `function file:line`, the file relative
// to node_modules or to the repository; and a CPU profile's self time summed by such a name.
import { REPO_ROOT } from './processes.ts';

export interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}

/** A V8 CPU profile (`--cpu-prof`, or the inspector's `Profiler.stop`), as far as these benches read it. */
export interface CpuProfile {
  nodes: { id: number; callFrame: CallFrame; children?: number[] }[];
  samples: number[];
  timeDeltas: number[];
}

export function frameName(frame: CallFrame): string {
  const where = frame.url ? ` ${shortUrl(frame.url)}:${frame.lineNumber + 1}` : '';
  return `${frame.functionName || '(anonymous)'}${where}`;
}

/**
 * Where a frame's code comes from: a package, a Node core module, the repository's top two
 * directories (`dist/rest`, `bench/floor.ts`), or, without a URL, `(native)` or V8's own
 * `(garbage collector)`, `(idle)`, `(program)`. `splitNative` names each native function instead
 * (`(native) writeUtf8String`: a socket write is not a log write).
 */
export function packageOf(frame: CallFrame, splitNative = false): string {
  const { url, functionName } = frame;
  if (!url) {
    if (functionName.startsWith('(')) return functionName;
    // graphql-jit compiles each operation with `new Function`: no URL, names such as
    // `OrganizationConnection__fieldnodesMapItemHandler` or `...ResolverHandler`.
    if (GRAPHQL_JIT_COMPILED.test(functionName)) return '(graphql-jit compiled)';
    return splitNative && functionName ? `(native) ${functionName}` : '(native)';
  }
  if (url.startsWith('node:')) return 'node: (core)';
  const { path, under } = located(url);
  if (under === 'elsewhere') return path;
  const parts = path.split('/');
  // A package's name (`@scope/name` takes two parts), or the repository's top two directories.
  const count = under === 'repository' || parts[0]?.startsWith('@') ? 2 : 1;
  return parts.slice(0, count).join('/');
}

const GRAPHQL_JIT_COMPILED = /Handler$|Handler\.|^query$/;

/**
 * The profile's self time in microseconds, summed by `keyOf(frame)`. Leaves out the profiler's own
 * work when it is stopped from within the process (frames under `node:inspector`).
 */
export function selfTimeBy(profile: CpuProfile, keyOf: (frame: CallFrame) => string): Map<string, number> {
  const byNode = new Map<number, number>();
  for (const [i, nodeId] of profile.samples.entries()) byNode.set(nodeId, (byNode.get(nodeId) ?? 0) + (profile.timeDeltas[i] ?? 0));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const inspector = new Set<number>();
  const markSubtree = (id: number) => {
    inspector.add(id);
    for (const child of nodes.get(id)?.children ?? []) markSubtree(child);
  };
  for (const node of profile.nodes) if (node.callFrame.url === 'node:inspector' && !inspector.has(node.id)) markSubtree(node.id);
  const byKey = new Map<string, number>();
  for (const [nodeId, us] of byNode) {
    if (inspector.has(nodeId)) continue;
    const key = keyOf((nodes.get(nodeId) as { callFrame: CallFrame }).callFrame);
    byKey.set(key, (byKey.get(key) ?? 0) + us);
  }
  return byKey;
}

function shortUrl(url: string): string {
  return located(url).path;
}

/** A script's path relative to node_modules (the innermost) or to the repository, else as it is. */
function located(url: string): { path: string; under: 'node_modules' | 'repository' | 'elsewhere' } {
  const path = url.replace(/^file:\/\//, '');
  const nm = path.lastIndexOf('/node_modules/');
  if (nm >= 0) return { path: path.slice(nm + '/node_modules/'.length), under: 'node_modules' };
  if (path.startsWith(REPO_ROOT)) return { path: path.slice(REPO_ROOT.length + 1), under: 'repository' };
  return { path, under: 'elsewhere' };
}
