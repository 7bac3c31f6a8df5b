/**
 * The node's deterministic Soroban resource-fee model.
 *
 * The fee depends only on the declared resources of a transaction (never on its byte size or
 * on what actually happened), so simulation can return `minResourceFee` equal to the
 * `resourceFee` of the `transactionData` it returns, and sendTransaction can check a submitted
 * `resourceFee` against the same function of the declared resources (`txSOROBAN_INVALID` when
 * it is lower). Rates are mainnet-like (protocol 23); there is no rent, no event/return-value
 * fee and no transaction-size fee, so the whole resource fee is non-refundable and nothing is
 * refunded.
 *
 * @module
 */

/** Fee rates (stroops). */
export const FEE_RATES = {
  /** per 10,000 CPU instructions */
  per10kInstructions: 25n,
  /** per ledger entry in the footprint (readOnly + readWrite) */
  perReadEntry: 6_250n,
  /** per readWrite entry */
  perWriteEntry: 10_000n,
  /** per 1 KiB of disk reads */
  perReadKb: 1_786n,
  /** per 1 KiB of writes */
  perWriteKb: 11_800n,
} as const;

/** Resources a fee is computed from. */
export interface FeeResources {
  instructions: number;
  diskReadBytes: number;
  writeBytes: number;
  readOnlyEntries: number;
  readWriteEntries: number;
}

const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;

/** The resource fee (stroops) of a transaction declaring `r`. */
export function resourceFee(r: FeeResources): bigint {
  const readEntries = BigInt(r.readOnlyEntries + r.readWriteEntries);
  const writeEntries = BigInt(r.readWriteEntries);
  return ceilDiv(BigInt(r.instructions) * FEE_RATES.per10kInstructions, 10_000n) +
    readEntries * FEE_RATES.perReadEntry +
    writeEntries * FEE_RATES.perWriteEntry +
    ceilDiv(BigInt(r.diskReadBytes) * FEE_RATES.perReadKb, 1024n) +
    ceilDiv(BigInt(r.writeBytes) * FEE_RATES.perWriteKb, 1024n);
}

/**
 * Instructions declared by simulation: the measured count plus stellar-rpc's default
 * leeway (max of +50,000 and ×1.04), so small state drift between simulation and submission
 * does not exceed the declared budget.
 */
export function paddedInstructions(measured: number): number {
  return Math.max(measured + 50_000, Math.ceil(measured * 1.04));
}
