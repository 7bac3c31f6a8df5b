/**
 * Automatic restore (CAP-66, protocol 23+), seen from the client: an invocation whose
 * footprint holds archived persistent entries restores them itself. Simulation then returns no
 * `restorePreamble`; the transaction data's v1 extension lists the restored entries
 * (`SorobanResourcesExtV0.archivedSorobanEntries`: indices into the read-write footprint), and
 * the resource fee covers the restore. This module reads that list and states what the restore
 * costs.
 *
 * What the restore costs, and which number we show. In rs-soroban-env 27.0.1
 * (`e2e_invoke.rs` `get_ledger_changes`, `fees.rs`) an auto-restored entry is charged
 * - as a disk read (entry count and bytes: archived entries are read from the archive, live
 *   Soroban state is not a disk read),
 * - rent as for a NEW entry (old size 0, old live-until 0) from the current ledger to at least
 *   `current + min_persistent_ttl - 1`, plus the TTL entry's write (`fee_per_write_entry` and
 *   48 bytes at `fee_write_1kb`),
 * - and a write of the entry itself, which the call pays anyway whenever the entry is in its
 *   read-write footprint (it has to be, to be restored).
 * The exact share ("the call's fee minus the same call's fee with the entries live") needs the
 * network's fee settings and the state size the rent rate follows; an RPC does not simulate the
 * hypothetical live case. So we state two numbers a client can get honestly:
 * - `resourceFee`: the simulation's resource fee of the call itself, restore included (exact
 *   upper bound of what is charged for resources; unused rent is refunded);
 * - `restoreFee`: the resource fee a simulation gives for restoring the same entries on their
 *   own (a RestoreFootprint of those keys). It charges the same archive read, the same rent
 *   and TTL write, and on top the entry write and the fees of a transaction of its own, which
 *   the call pays anyway: so it is an upper bound of the restore's share ("at most").
 *   `null` when the RPC cannot simulate it.
 *
 * @module
 */
import {
  Account,
  BASE_FEE,
  Operation,
  rpc,
  SorobanDataBuilder,
  type Transaction,
  TransactionBuilder,
  type xdr,
} from "@stellar/stellar-sdk";

/** Archived entries an invocation restores by itself, and what that costs (stroops). */
export interface AutoRestore {
  /** How many archived entries the call restores. */
  entries: number;
  /** The call's whole resource fee from simulation, the restore included. */
  resourceFee: string;
  /**
   * At most this much of `resourceFee` is the restore: the resource fee of restoring the same
   * entries alone (see the module doc). `null` when the RPC could not simulate that.
   */
  restoreFee: string | null;
}

/**
 * The ledger keys an invocation restores itself: the read-write footprint entries that the
 * transaction data's v1 extension lists (empty for v0 data, or before protocol 23).
 */
export function archivedEntryKeys(data: xdr.SorobanTransactionData): xdr.LedgerKey[] {
  const ext = data.ext;
  if (ext.type !== "resourceExt") return [];
  const rw = data.resources.footprint.readWrite;
  return ext.resourceExt.archivedSorobanEntries.map((i) => {
    const k = rw[i];
    if (!k) throw new Error(`archived entry index ${i} outside the read-write footprint`);
    return k;
  });
}

/**
 * An unsigned RestoreFootprint transaction of `keys` from `source`, for simulation only (its
 * sequence number is never checked there).
 */
export function restoreDraft(
  passphrase: string,
  source: string,
  keys: xdr.LedgerKey[],
): Transaction {
  return new TransactionBuilder(new Account(source, "0"), {
    fee: BASE_FEE,
    networkPassphrase: passphrase,
    timebounds: { minTime: 0, maxTime: 0 },
  })
    .setSorobanData(new SorobanDataBuilder().setReadWrite(keys).build())
    .addOperation(Operation.restoreFootprint({}))
    .build();
}

/**
 * The resource fee (stroops) a simulation gives for restoring `keys` alone, with `source` as
 * the transaction's source (simulation checks no sequence number); `null` when the RPC refuses.
 */
export async function restoreAloneFee(
  server: rpc.Server,
  passphrase: string,
  source: string,
  keys: xdr.LedgerKey[],
): Promise<string | null> {
  const tx = restoreDraft(passphrase, source, keys);
  try {
    const sim = await server.simulateTransaction(tx);
    return rpc.Api.isSimulationSuccess(sim) ? sim.minResourceFee : null;
  } catch {
    return null;
  }
}

/**
 * What a successful simulation says about an automatic restore, or `null` when the call
 * restores nothing. Asks the RPC once more (the restore-alone fee) only in the restore case.
 */
export async function autoRestoreOf(
  server: rpc.Server,
  passphrase: string,
  source: string,
  sim: rpc.Api.SimulateTransactionSuccessResponse,
): Promise<AutoRestore | null> {
  const keys = archivedEntryKeys(sim.transactionData.build());
  if (keys.length === 0) return null;
  const alone = await restoreAloneFee(server, passphrase, source, keys);
  return {
    entries: keys.length,
    resourceFee: sim.minResourceFee,
    // A share is never more than the whole (the alone fee carries a transaction of its own).
    restoreFee: alone === null
      ? null
      : String(BigInt(alone) < BigInt(sim.minResourceFee) ? alone : sim.minResourceFee),
  };
}
