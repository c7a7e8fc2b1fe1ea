// Which texts name a Redis: the CACHE setting's check, and the cluster seeds the store connects to.
/** A Redis Cluster's seed nodes and credentials: the client finds the other nodes from them. */
interface RedisClusterTarget {
  nodes: { host: string; port: number }[];
  username?: string;
  password?: string;
  tls: boolean;
}

/**
 * `redis-cluster://[user:password@]host:port[,host:port…]` (`rediss-cluster://` for TLS) as a
 * target, or undefined when `text` is not one. A cluster has no database number.
 */
export function redisClusterTarget(text: string): RedisClusterTarget | undefined {
  const match = /^(rediss?)-cluster:\/\/(?:([^@/]*)@)?([^@/?#]+)\/?$/.exec(text);
  if (!match) return undefined;
  const [, scheme, credentials, seeds] = match as unknown as [string, string, string | undefined, string];
  const nodes: RedisClusterTarget['nodes'] = [];
  for (const seed of seeds.split(',')) {
    const node = /^([A-Za-z0-9._-]+|\[[0-9A-Fa-f:.]+\]):(\d{1,5})$/.exec(seed.trim());
    const port = Number(node?.[2]);
    if (!node || port < 1 || port > 65_535) return undefined;
    nodes.push({ host: (node[1] as string).replace(/^\[|\]$/g, ''), port });
  }
  const separator = credentials?.indexOf(':') ?? -1;
  try {
    const username = credentials === undefined ? '' : decodeURIComponent(separator === -1 ? credentials : credentials.slice(0, separator));
    const password = credentials === undefined || separator === -1 ? '' : decodeURIComponent(credentials.slice(separator + 1));
    return { nodes, username: username || undefined, password: password || undefined, tls: scheme === 'rediss' };
  } catch {
    return undefined; // a malformed %-escape
  }
}

/** A Redis URL, never echoed in the error: it may hold a password. */
export function isRedisUrl(text: string): boolean {
  try {
    const url = new URL(text);
    return ['redis:', 'rediss:'].includes(url.protocol) && url.hostname !== '' && /^\/?\d*$/.test(url.pathname) && !url.search && !url.hash;
  } catch {
    return false;
  }
}
