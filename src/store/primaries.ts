// Whether every primary of a Redis Cluster serves: the store is only put back in use when every
// hash slot the gateway may need is served. A PING through the cluster client reaches one node
// alone, which answers while another primary is down or paused; the store was then used again and
// set aside within 150 ms, again and again. The primaries are read from the cluster itself
// (CLUSTER SLOTS) rather than from the client's connections, which drop a node whose connection
// ended: a primary that was killed would not be asked at all. Each is asked for CLUSTER INFO rather
// than a PING: a primary that just restarted answers, but refuses commands (CLUSTERDOWN) until it
// reports `cluster_state:ok`.
import type { Cluster } from 'ioredis';

const HASH_SLOTS = 16_384;

/** Resolves once the whole slot space has primaries and each of them reports the cluster ok; else rejects, naming the first that did not. */
export async function checkEveryPrimary(cluster: Cluster, within: <T>(answer: Promise<T>) => Promise<T>): Promise<void> {
  // Each range: its first and last slot, then its primary (replicas follow).
  const ranges = await within(cluster.cluster('SLOTS'));
  const primaries = new Set<string>();
  let served = 0;
  for (const [from, to, primary] of ranges) {
    if (!primary) continue;
    served += to - from + 1;
    primaries.add(`${primary[0]}:${primary[1]}`);
  }
  if (served < HASH_SLOTS) throw new Error(`${HASH_SLOTS - served} hash slots have no primary`);
  const connected = new Map(cluster.nodes('master').map((node) => [`${node.options.host}:${node.options.port}`, node]));
  await Promise.all(
    [...primaries].map(async (primary) => {
      const node = connected.get(primary);
      if (!node) {
        // The client dropped its connection: it reconnects once it reads the slots again.
        cluster.refreshSlotsCache();
        throw new Error(`primary ${primary} is not connected`);
      }
      const info = await within(node.cluster('INFO')).catch((error: unknown) => {
        throw new Error(`primary ${primary} did not answer: ${(error as Error).message}`);
      });
      if (!/^cluster_state:ok\b/m.test(info)) throw new Error(`primary ${primary} does not report cluster_state:ok`);
    }),
  );
}
