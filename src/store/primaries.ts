// Whether every primary of a Redis Cluster answers: the store is only put back in use when every
// hash slot the gateway may need is served. A PING through the cluster client reaches one node
// alone, which answers while another primary is down or paused; the store was then used again and
// set aside within 150 ms, again and again. The primaries are read from the cluster itself
// (CLUSTER SLOTS) rather than from the client's connections, which drop a node whose connection
// ended: a primary that was killed would not be asked at all.
import type { Cluster } from 'ioredis';

const HASH_SLOTS = 16_384;

/** Resolves once the whole slot space has primaries and each of them answered a PING; else rejects, naming the first that did not. */
export async function pingEveryPrimary(cluster: Cluster, within: <T>(answer: Promise<T>) => Promise<T>): Promise<void> {
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
      await within(node.ping()).catch((error: unknown) => {
        throw new Error(`primary ${primary} did not answer: ${(error as Error).message}`);
      });
    }),
  );
}
