/**
 * The PRNG seeds stellar-core gives the Soroban host when it applies a ledger: the ledger's
 * Soroban base seed is the hash of its transaction set (`sorobanBasePrngSeed =
 * txSet.getContentsHash()`), and each Soroban transaction runs on a sub-seed of it keyed by
 * the transaction's application index in the ledger (`subSha256(base, index)`). Since
 * protocol 23 the Soroban phase is applied in parallel and that sub-seed goes to the
 * transaction's one operation as is. Deterministic: replaying a ledger gives the same seeds.
 *
 * @module
 */
import { sha256 } from "./util.ts";

/** stellar-core's `subSha256(seed, counter)`: SHA-256 of the seed, then the counter as XDR uint64. */
export function subSha256(seed: Uint8Array, counter: number | bigint): Uint8Array {
  const n = new Uint8Array(8);
  new DataView(n.buffer).setBigUint64(0, BigInt(counter));
  return sha256(seed, n);
}

/**
 * The PRNG seed of the Soroban transaction applied at `index` (0-based, across the whole
 * ledger: the classic phase's transactions count too) of a ledger whose transaction set
 * hashes to `txSetHash`.
 */
export function sorobanTxPrngSeed(txSetHash: Uint8Array, index: number): Uint8Array {
  return subSha256(txSetHash, index);
}
