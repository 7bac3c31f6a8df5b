/**
 * The Soroban resource-fee schedule the node validates submissions with: rs-soroban-env's
 * `compute_transaction_resource_fee` (checked equal to the host's own, stroop for stroop, in
 * `localnet/ledger_test.ts`) over the public network's protocol-27 configuration
 * (`network_settings.ts`). Rent is not computed here: the host computes it (`real_host/`).
 *
 * - **Non-refundable** (checked at submission against the declared `resourceFee`): CPU
 *   instructions, disk-read entries (classic entries in the footprint — since protocol 23 live
 *   Soroban state is in memory and its reads are free), written entries, disk-read and written
 *   bytes, and the transaction size twice: historical storage (size + 300-byte result) and
 *   bandwidth.
 * - **Refundable** (paid from `resourceFee − non-refundable` after execution; what is left is
 *   refunded): contract events and the return value, and rent for new entries, TTL extensions
 *   and entry growth. When they exceed the budget the operation fails with
 *   `INSUFFICIENT_REFUNDABLE_FEE`.
 *
 * @module
 */
import { type FeeConfig, p27FeeConfig } from "./network_settings.ts";

export type { FeeConfig };

/**
 * The node's fee configuration: the public network's at protocol 27 (`network_settings.ts`,
 * SLP-4's schedule; rent at the network's sampled state size).
 */
export const FEE_CONFIG: FeeConfig = p27FeeConfig();

/** rs-soroban-env's TX_BASE_RESULT_SIZE: history stores the result next to the envelope. */
export const TX_BASE_RESULT_SIZE = 300;

/** Resources a non-refundable fee is computed from. */
export interface FeeResources {
  instructions: number;
  /** Footprint entries read from disk (classic: accounts, trustlines). */
  diskReadEntries: number;
  /** Footprint entries written (readWrite). */
  writeEntries: number;
  diskReadBytes: number;
  writeBytes: number;
  /** Size of the transaction envelope XDR in bytes. */
  txSizeBytes: number;
}

const ceilDiv = (a: bigint, b: bigint): bigint => (a + b - 1n) / b;
const per = (value: number, rate: bigint, increment: bigint): bigint =>
  ceilDiv(BigInt(value) * rate, increment);

/** The non-refundable resource fee (stroops) of a transaction declaring `r`. */
export function nonRefundableFee(r: FeeResources, c: FeeConfig = FEE_CONFIG): bigint {
  return per(r.instructions, c.perInstructionIncrement, 10_000n) +
    BigInt(r.diskReadEntries) * c.perDiskReadEntry +
    BigInt(r.writeEntries) * c.perWriteEntry +
    per(r.diskReadBytes, c.perDiskRead1kb, 1024n) +
    per(r.writeBytes, c.perWrite1kb, 1024n) +
    per(r.txSizeBytes + TX_BASE_RESULT_SIZE, c.perHistorical1kb, 1024n) +
    per(r.txSizeBytes, c.perTxSize1kb, 1024n);
}

/** Refundable fee of contract events and the return value (`bytes` of their XDR). */
export function eventsFee(bytes: number, c: FeeConfig = FEE_CONFIG): bigint {
  return per(bytes, c.perEvent1kb, 1024n);
}
