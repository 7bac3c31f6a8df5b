/**
 * The order stellar-core applies a ledger's transactions in, and the canonical order its
 * transaction set lists them in (protocol 23+, generalized tx set with a parallel Soroban
 * phase). Read from stellar-core `src/herder/TxSetFrame.cpp` (`ApplyTxSorter`,
 * `sortedForApplySequential`, `sortedForApplyParallel`, `sequentialPhaseToXdr`,
 * `parallelPhaseToXdr`), `src/herder/TxSetUtils.cpp` (`hashTxSorter`, `buildAccountTxQueues`,
 * `sortParallelTxsInHashOrder`) and `src/ledger/LedgerManagerImpl.cpp` (`applyTransactions`):
 *
 * - Every comparison uses a transaction's *full hash*: SHA-256 of its whole envelope XDR
 *   (signatures included; a fee bump's outer envelope), not the transaction hash clients see.
 * - Canonical (XDR) order, which the set's contents hash covers: each component's, and each
 *   cluster's, transactions by full hash; clusters of a stage by their first transaction;
 *   stages by their first cluster's first transaction.
 * - Apply order: the classic phase, then the Soroban phase. Classic: per source account a queue
 *   in sequence-number order; batch i holds every account's i-th transaction; each batch is
 *   sorted by (full hash XOR the set's contents hash). Soroban: each cluster sorted the same
 *   way, stages by their first cluster's first transaction; clusters keep their canonical order.
 *   The application index (meta order, TOIDs, the PRNG sub-seed) runs across both phases.
 *
 * XOR with the set hash makes the order unpredictable to a sender: the set hash depends on every
 * transaction in the ledger, so the fastest sender has no edge over a slower one.
 *
 * @module
 */
import { sha256 } from "./util.ts";

/** What ordering reads of a transaction. */
export interface OrderItem {
  /** SHA-256 of the whole envelope XDR (stellar-core's `getFullHash`). */
  fullHash: Uint8Array;
  /** Source account of the (inner) transaction (`getSourceID`). */
  source: string;
  /** Sequence number of the (inner) transaction. */
  seqNum: bigint;
  /** In the Soroban phase. */
  soroban: boolean;
}

/** stellar-core's `getFullHash`: SHA-256 of the envelope's XDR bytes. */
export function fullHash(envelopeBytes: Uint8Array): Uint8Array {
  return sha256(envelopeBytes);
}

/** Byte-wise comparison of two hashes (stellar-core's `Hash` operator<). */
export function compareHashes(a: Uint8Array, b: Uint8Array): number {
  for (let i = 0; i < a.length; i++) {
    if (a[i] !== b[i]) return a[i] - b[i];
  }
  return a.length - b.length;
}

/** stellar-core's `lessThanXored` as a comparator: `a XOR x` against `b XOR x`. */
export function compareXored(a: Uint8Array, b: Uint8Array, x: Uint8Array): number {
  for (let i = 0; i < a.length; i++) {
    const d = (a[i] ^ x[i]) - (b[i] ^ x[i]);
    if (d !== 0) return d;
  }
  return 0;
}

/** Transactions in full-hash order (`TxSetUtils::sortTxsInHashOrder`). */
export function hashOrder<T extends Pick<OrderItem, "fullHash">>(txs: readonly T[]): T[] {
  return [...txs].sort((a, b) => compareHashes(a.fullHash, b.fullHash));
}

/** A parallel phase's stages, each a list of clusters, each a list of transactions. */
export type Stages<T> = T[][][];

/** Canonical order of a parallel phase (`TxSetUtils::sortParallelTxsInHashOrder`). */
export function canonicalStages<T extends Pick<OrderItem, "fullHash">>(
  stages: Stages<T>,
): Stages<T> {
  const first = (c: T[]) => c[0].fullHash;
  return stages
    .map((stage) =>
      stage.map((c) => hashOrder(c)).sort((a, b) => compareHashes(first(a), first(b)))
    )
    .sort((a, b) => compareHashes(first(a[0]), first(b[0])));
}

/**
 * The Soroban phase as stellar-core's builder (`buildSurgePricedParallelSorobanPhase`) lays out
 * this node's sets: one stage, one cluster. The builder tries 1 to 4 stages and keeps the fewest
 * that carry the highest fees; with one stage a cluster (a bin of dependent-transaction
 * clusters, first fit) holds `ledgerMaxInstructions` (580M on the public network), and this
 * node's Soroban lane admits at most 500M declared instructions per ledger, so everything fits
 * in the first bin. Conflicting transactions (a racing pair) share a cluster on the real
 * network too.
 */
export function sorobanStages<T>(txs: readonly T[]): Stages<T> {
  return txs.length === 0 ? [] : [[[...txs]]];
}

/** Classic-phase apply order (`sortedForApplySequential`). */
export function sequentialApplyOrder<T extends OrderItem>(
  txs: readonly T[],
  setHash: Uint8Array,
): T[] {
  const queues = new Map<string, T[]>();
  for (const t of txs) {
    const q = queues.get(t.source);
    if (q) q.push(t);
    else queues.set(t.source, [t]);
  }
  for (const q of queues.values()) {
    q.sort((a, b) => (a.seqNum < b.seqNum ? -1 : a.seqNum > b.seqNum ? 1 : 0));
  }
  const out: T[] = [];
  for (let i = 0;; i++) {
    const batch: T[] = [];
    for (const q of queues.values()) if (i < q.length) batch.push(q[i]);
    if (batch.length === 0) return out;
    batch.sort((a, b) => compareXored(a.fullHash, b.fullHash, setHash));
    out.push(...batch);
  }
}

/** Soroban-phase apply order of its stages (`sortedForApplyParallel`). */
export function parallelApplyOrder<T extends Pick<OrderItem, "fullHash">>(
  stages: Stages<T>,
  setHash: Uint8Array,
): Stages<T> {
  const byXor = (a: T, b: T) => compareXored(a.fullHash, b.fullHash, setHash);
  // Clusters of a stage are independent: stellar-core leaves them in canonical order.
  const sorted = canonicalStages(stages).map((stage) => stage.map((c) => [...c].sort(byXor)));
  return sorted.sort((a, b) => byXor(a[0][0], b[0][0]));
}

/**
 * The whole ledger's apply order (`getPhasesInApplyOrder`, flattened as `applyTransactions`
 * numbers it): the classic phase, then the Soroban phase's stages, clusters and transactions.
 */
export function applyOrder<T extends OrderItem>(txs: readonly T[], setHash: Uint8Array): T[] {
  const classic = sequentialApplyOrder(txs.filter((t) => !t.soroban), setHash);
  const stages = parallelApplyOrder(sorobanStages(txs.filter((t) => t.soroban)), setHash);
  return [...classic, ...stages.flat(2)];
}
