/**
 * XDR builders for what a closed ledger publishes: transaction sets, results, transaction
 * meta (v4, protocol 23) and LedgerCloseMeta (v2). Built lazily by callers and cached, since
 * most are only read when a client asks for them.
 *
 * @module
 */
import { Address, nativeToScVal, xdr } from "@stellar/stellar-sdk";
import type { Change } from "./store.ts";
import type { TxRecord } from "./tx.ts";
import { canonicalStages, fullHash, hashOrder, sorobanStages } from "./apply_order.ts";
import { fromB64, fromHex, sha256, toB64 } from "./util.ts";

/** LedgerEntryChanges of recorded changes (state+updated, created, state+removed). */
export function changesXdr(changes: Change[]): xdr.LedgerEntryChange[] {
  const out: xdr.LedgerEntryChange[] = [];
  for (const c of changes) {
    if (c.before && c.after) {
      out.push(xdr.LedgerEntryChange.ledgerEntryState(c.before));
      out.push(xdr.LedgerEntryChange.ledgerEntryUpdated(c.after));
    } else if (c.after) {
      out.push(xdr.LedgerEntryChange.ledgerEntryCreated(c.after));
    } else if (c.before) {
      out.push(xdr.LedgerEntryChange.ledgerEntryState(c.before));
      out.push(xdr.LedgerEntryChange.ledgerEntryRemoved(xdr.LedgerKey.fromXdr(c.key, "base64")));
    }
  }
  return out;
}

/**
 * A CAP-67 `fee` transaction event as stellar-core emits it (TxEventManager::newFeeEvent): a
 * `contract` event of the native asset's SAC, topics `[Symbol("fee"), Address(fee source)]`,
 * data the i128 amount (negative for a refund).
 */
export function feeEvent(
  nativeSac: Uint8Array,
  feeSource: string,
  amount: bigint,
  stage: xdr.TransactionEventStage = xdr.TransactionEventStage.transactionEventStageBeforeAllTxs,
): xdr.TransactionEvent {
  return new xdr.TransactionEvent({
    stage,
    event: new xdr.ContractEvent({
      ext: xdr.ExtensionPoint.v0(),
      contractId: new xdr.ContractId(nativeSac),
      type: xdr.ContractEventType.contract,
      body: xdr.ContractEventBody.v0(
        new xdr.ContractEventV0({
          topics: [xdr.ScVal.scvSymbol("fee"), new Address(feeSource).toScVal()],
          data: nativeToScVal(amount, { type: "i128" }),
        }),
      ),
    }),
  });
}

/**
 * The transaction-level events of an applied transaction (protocol 23+): the fee charged in
 * the ledger's fee processing (stage before-all-txs) and, for a Soroban transaction, the refund
 * as a negative fee (stage after-all-txs, CAP-63). Zero amounts are not emitted, as in core.
 */
export function txEvents(tx: TxRecord, nativeSac: Uint8Array): xdr.TransactionEvent[] {
  if (tx.cache.txEvents) return tx.cache.txEvents;
  const out: xdr.TransactionEvent[] = [];
  if (tx.feeChargedBefore !== 0n) out.push(feeEvent(nativeSac, tx.feeSource, tx.feeChargedBefore));
  if (tx.refund !== 0n) {
    out.push(
      feeEvent(
        nativeSac,
        tx.feeSource,
        -tx.refund,
        xdr.TransactionEventStage.transactionEventStageAfterAllTxs,
      ),
    );
  }
  return tx.cache.txEvents = out;
}

/** TransactionMeta v4 of an applied transaction. */
export function txMeta(tx: TxRecord, nativeSac: Uint8Array): xdr.TransactionMeta {
  if (tx.cache.meta) return tx.cache.meta;
  const operations = tx.opChanges.map((changes, i) =>
    new xdr.OperationMetaV2({
      ext: xdr.ExtensionPoint.v0(),
      changes: changesXdr(changes),
      events: tx.opEvents[i] ?? [],
    })
  );
  let sorobanMeta: xdr.SorobanTransactionMetaV2 | null = null;
  if (tx.soroban && tx.successful) {
    sorobanMeta = new xdr.SorobanTransactionMetaV2({
      ext: xdr.SorobanTransactionMetaExt.v1(
        new xdr.SorobanTransactionMetaExtV1({
          ext: xdr.ExtensionPoint.v0(),
          totalNonRefundableResourceFeeCharged: tx.soroban.nonRefundableFee,
          totalRefundableResourceFeeCharged: tx.soroban.refundableFee,
          rentFeeCharged: tx.soroban.rentFee,
        }),
      ),
      returnValue: tx.soroban.returnValue ?? null,
    });
  }
  const meta = xdr.TransactionMeta.v4(
    new xdr.TransactionMetaV4({
      ext: xdr.ExtensionPoint.v0(),
      txChangesBefore: changesXdr(tx.seqChanges),
      operations,
      // CAP-63: the refund is in the ledger's postTxApplyFeeProcessing, not here.
      txChangesAfter: [],
      sorobanMeta,
      events: txEvents(tx, nativeSac),
      diagnosticEvents: tx.diagnosticEvents,
    }),
  );
  tx.cache.meta = meta;
  return meta;
}

/** base64 TransactionMeta (cached). */
export function txMetaB64(tx: TxRecord, nativeSac: Uint8Array): string {
  return tx.cache.metaB64 ??= txMeta(tx, nativeSac).toXdr("base64");
}

/** base64 TransactionResult (cached). */
export function txResultB64(tx: TxRecord): string {
  return tx.cache.resultB64 ??= toB64(resultBytes(tx));
}

/** TransactionResultPair of a transaction. */
export function resultPair(tx: TxRecord): xdr.TransactionResultPair {
  return new xdr.TransactionResultPair({
    transactionHash: new xdr.Hash(fromHex(tx.hash)),
    result: tx.result,
  });
}

/**
 * The GeneralizedTransactionSet of a ledger as stellar-core writes it (`sequentialPhaseToXdr`,
 * `parallelPhaseToXdr`): classic transactions in phase 0, one component per base fee (ascending)
 * listing its transactions by full hash; Soroban ones in the parallel phase 1 (one stage, one
 * cluster: see `sorobanStages`), by full hash. The members' order in `txs` does not matter.
 */
export function txSetOf(prevHash: Uint8Array, txs: TxRecord[]): xdr.GeneralizedTransactionSet {
  const { classic, soroban, sorobanBaseFee } = canonical(txs);
  const phases = [
    xdr.TransactionPhase.v0Components(
      classic.map(({ baseFee, txs }) =>
        xdr.TxSetComponent.txsetCompTxsMaybeDiscountedFee(
          new xdr.TxSetComponentTxsMaybeDiscountedFee({
            baseFee: baseFee === undefined ? null : xdr.Int64.fromString(baseFee.toString()),
            txs: txs.map((t) => (t as TxRecord).envelope),
          }),
        )
      ),
    ),
    xdr.TransactionPhase.parallelTxsComponent(
      new xdr.ParallelTxsComponent({
        baseFee: sorobanBaseFee === undefined
          ? null
          : xdr.Int64.fromString(sorobanBaseFee.toString()),
        executionStages: soroban.map((stage) =>
          stage.map((cluster) => cluster.map((t) => (t as TxRecord).envelope))
        ),
      }),
    ),
  ];
  return xdr.GeneralizedTransactionSet.v1TxSet(
    new xdr.TransactionSetV1({ previousLedgerHash: new xdr.Hash(prevHash), phases }),
  );
}

/** The members of a set in canonical order, grouped as the XDR lays them out. */
function canonical(txs: readonly TxSetMember[]): {
  classic: { baseFee?: bigint; txs: TxSetMember[] }[];
  soroban: TxSetMember[][][];
  sorobanBaseFee?: bigint;
} {
  const items = txs.map((t) => ({ t, fullHash: memberFullHash(t) }));
  const byFee = new Map<bigint | undefined, typeof items>();
  for (const i of items) {
    if (i.t.soroban) continue;
    const list = byFee.get(i.t.txSetBaseFee);
    if (list) list.push(i);
    else byFee.set(i.t.txSetBaseFee, [i]);
  }
  // std::map<std::optional<int64_t>, ...>: no base fee first, then ascending.
  const fees = [...byFee.keys()].sort((a, b) =>
    a === undefined ? -1 : b === undefined ? 1 : a < b ? -1 : a > b ? 1 : 0
  );
  const classic = fees.map((baseFee) => ({
    baseFee,
    txs: hashOrder(byFee.get(baseFee)!).map((i) => i.t),
  }));
  const sor = items.filter((i) => i.t.soroban);
  const soroban = canonicalStages(sorobanStages(sor)).map((s) => s.map((c) => c.map((i) => i.t)));
  return { classic, soroban, sorobanBaseFee: sor[0]?.t.txSetBaseFee };
}

/** XDR writer of the few shapes hashed at every ledger close (no re-encoding of envelopes). */
class RawXdr {
  parts: Uint8Array[] = [];
  u32(n: number): this {
    const b = new Uint8Array(4);
    new DataView(b.buffer).setUint32(0, n);
    this.parts.push(b);
    return this;
  }
  i64(n: bigint): this {
    const b = new Uint8Array(8);
    new DataView(b.buffer).setBigInt64(0, n);
    this.parts.push(b);
    return this;
  }
  bytes(b: Uint8Array): this {
    this.parts.push(b);
    return this;
  }
}

/**
 * The contents hash of the set {@link txSetOf}(prevHash, txs) (stellar-core's
 * `TxSetXDRFrame::getContentsHash`, the SHA-256 of its XDR), built from the envelopes' original
 * bytes (equal to `sha256(txSetOf(...).toXdr())`, without re-encoding every envelope).
 */
export function txSetHash(
  prevHash: Uint8Array,
  txs: readonly TxSetMember[],
): Uint8Array {
  const { classic, soroban, sorobanBaseFee } = canonical(txs);
  const w = new RawXdr().u32(1).bytes(prevHash).u32(2);
  const optFee = (fee: bigint | undefined) => (fee === undefined ? w.u32(0) : w.u32(1).i64(fee));
  w.u32(0).u32(classic.length);
  for (const c of classic) {
    w.u32(0);
    optFee(c.baseFee);
    w.u32(c.txs.length);
    for (const t of c.txs) w.bytes(memberBytes(t));
  }
  w.u32(1);
  optFee(sorobanBaseFee);
  w.u32(soroban.length);
  for (const stage of soroban) {
    w.u32(stage.length);
    for (const cluster of stage) {
      w.u32(cluster.length);
      for (const t of cluster) w.bytes(memberBytes(t));
    }
  }
  return sha256(...w.parts);
}

/** sha256 of the XDR TransactionResultSet of `txs` (result bytes cached per transaction). */
export function resultSetHash(txs: TxRecord[]): Uint8Array {
  const w = new RawXdr().u32(txs.length);
  for (const t of txs) w.bytes(fromHex(t.hash)).bytes(resultBytes(t));
  return sha256(...w.parts);
}

/**
 * What {@link txSetHash} reads of a transaction: applied ones (`TxRecord`) and ones about to be
 * applied (the ledger hashes its set before applying it: the apply order and the Soroban PRNG
 * seeds depend on the hash).
 */
export type TxSetMember = Pick<TxRecord, "envelopeB64" | "txSetBaseFee"> & {
  soroban?: unknown;
  cache?: TxRecord["cache"];
};

function memberBytes(t: TxSetMember): Uint8Array {
  return t.cache ? envelopeBytes(t as TxRecord) : fromB64(t.envelopeB64);
}

/** stellar-core's full hash of a member (cached on applied transactions). */
export function memberFullHash(t: TxSetMember): Uint8Array {
  if (t.cache) return t.cache.fullHash ??= fullHash(memberBytes(t));
  return fullHash(memberBytes(t));
}

function envelopeBytes(t: TxRecord): Uint8Array {
  return t.cache.envelopeBytes ??= fromB64(t.envelopeB64);
}

function resultBytes(t: TxRecord): Uint8Array {
  return t.cache.resultBytes ??= t.result.toXdr();
}

/** LedgerCloseMeta v2 of a closed ledger. */
export function ledgerCloseMeta(
  history: xdr.LedgerHeaderHistoryEntry,
  txSet: xdr.GeneralizedTransactionSet,
  txs: TxRecord[],
  nativeSac: Uint8Array,
  liveSorobanBytes: bigint,
): xdr.LedgerCloseMeta {
  return xdr.LedgerCloseMeta.v2(
    new xdr.LedgerCloseMetaV2({
      ext: xdr.LedgerCloseMetaExt.v0(),
      ledgerHeader: history,
      txSet,
      txProcessing: txs.map((tx) =>
        new xdr.TransactionResultMetaV1({
          ext: xdr.ExtensionPoint.v0(),
          result: resultPair(tx),
          feeProcessing: changesXdr(tx.feeChanges),
          txApplyProcessing: txMeta(tx, nativeSac),
          postTxApplyFeeProcessing: changesXdr(tx.refundChanges),
        })
      ),
      upgradesProcessing: [],
      scpInfo: [],
      totalByteSizeOfLiveSorobanState: liveSorobanBytes,
      evictedKeys: [],
    }),
  );
}
