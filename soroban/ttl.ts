/**
 * State archival, from the keeper's side: keeping contract instances and their code alive by
 * extending their TTL when it falls below a threshold — cheap (one ExtendFootprintTtl
 * transaction for all of them), and anyone may send it. Archived ones are restored first with
 * a RestoreFootprint transaction: only an invocation restores archived entries by itself
 * (protocol 23+, CAP-66; see tx.ts), an ExtendFootprintTtl does not.
 *
 * @module
 */
import {
  type Account,
  type Keypair,
  Operation,
  rpc,
  type Transaction,
  TransactionBuilder,
  xdr,
} from "@stellar/stellar-sdk";
import { contractInstanceKey, getLedgerEntries } from "./ledger.ts";
import type { ChainRpc } from "./rpc.ts";
import {
  DEFAULT_VALID_FOR_LEDGERS,
  inclusionFeeFor,
  type InvokeOptions,
  restoreFromPreamble,
  sendAndConfirm,
  withSourceLock,
} from "./tx.ts";

/**
 * Keep-alive threshold: extend when fewer than this many ledgers of TTL are left (14 days of
 * 5-second ledgers).
 */
export const TTL_THRESHOLD_LEDGERS = 241_920;
/** Keep-alive target: extend to this many ledgers from now (120 days, the minimum new TTL). */
export const TTL_EXTEND_TO_LEDGERS = 2_073_600;

/** Outcome of {@link keepAlive}. */
export interface KeepAliveReport {
  /** Entries (instances and code) whose TTL was checked. */
  checked: number;
  /** Entries extended (or restored) by this call. */
  extended: number;
  restored: number;
  txHash?: string;
}

/** The instance keys and code keys of `contracts` (code read from the instances). */
async function contractKeys(chain: ChainRpc, contracts: string[]): Promise<xdr.LedgerKey[]> {
  const instanceKeys = contracts.map(contractInstanceKey);
  const { entries } = await getLedgerEntries(chain, instanceKeys);
  const keys = [...instanceKeys];
  const seen = new Set(keys.map((k) => k.toXdr("base64")));
  for (const e of entries.values()) {
    const data = xdr.LedgerEntryData.fromXdr(e.xdr, "base64");
    if (data.type !== "contractData") continue;
    const v = data.contractData.val;
    if (v.type !== "scvContractInstance") continue;
    const exe = v.instance.executable;
    if (exe.type === "contractExecutableWasm") {
      // Contracts sharing one Wasm share its code entry: list it once (a footprint key twice
      // is an invalid transaction).
      const k = xdr.LedgerKey.contractCode(new xdr.LedgerKeyContractCode({ hash: exe.wasmHash }));
      const b64 = k.toXdr("base64");
      if (!seen.has(b64)) keys.push(k);
      seen.add(b64);
    }
  }
  return keys;
}

/**
 * Keeps `contracts` (their instances and Wasm code) alive: every entry whose TTL ends within
 * `thresholdLedgers` is extended to `extendToLedgers` from now in one ExtendFootprintTtl
 * transaction; archived ones are restored first. Nothing is sent when all are far from expiry.
 */
export async function keepAlive(
  chain: ChainRpc,
  keypair: Keypair,
  contracts: string[],
  opts: InvokeOptions & { thresholdLedgers?: number; extendToLedgers?: number } = {},
): Promise<KeepAliveReport> {
  const threshold = opts.thresholdLedgers ?? TTL_THRESHOLD_LEDGERS;
  const extendTo = opts.extendToLedgers ?? TTL_EXTEND_TO_LEDGERS;
  const keys = await contractKeys(chain, contracts);
  const { entries, latestLedger } = await getLedgerEntries(chain, keys);
  const low: xdr.LedgerKey[] = [];
  let archived = 0;
  for (const k of keys) {
    const e = entries.get(k.toXdr("base64"));
    if (!e || e.liveUntilLedgerSeq === undefined) continue;
    if (e.liveUntilLedgerSeq < latestLedger) archived++;
    if (e.liveUntilLedgerSeq - latestLedger < threshold) low.push(k);
  }
  const report: KeepAliveReport = { checked: entries.size, extended: 0, restored: 0 };
  if (low.length === 0) return report;
  return await withSourceLock(chain, keypair.publicKey(), async () => {
    const build = (account: Account, fee: number) =>
      new TransactionBuilder(account, {
        fee: String(fee),
        networkPassphrase: chain.networkPassphrase,
        timebounds: { minTime: 0, maxTime: 0 },
      })
        .setSorobanData(
          new xdr.SorobanTransactionData({
            ext: xdr.SorobanTransactionDataExt.v0(),
            resources: new xdr.SorobanResources({
              footprint: new xdr.LedgerFootprint({ readOnly: low, readWrite: [] }),
              instructions: 0,
              diskReadBytes: 0,
              writeBytes: 0,
            }),
            resourceFee: 0n,
          }),
        )
        .addOperation(Operation.extendFootprintTtl({ extendTo }))
        .build();
    if (archived > 0) {
      // Archived entries cannot be extended: restore them (the simulation of the restore
      // tells its fee), then extend.
      const acc = await chain.server.getAccount(keypair.publicKey());
      const restoreDraft = new TransactionBuilder(acc, {
        fee: "100",
        networkPassphrase: chain.networkPassphrase,
        timebounds: { minTime: 0, maxTime: 0 },
      })
        .setSorobanData(
          new xdr.SorobanTransactionData({
            ext: xdr.SorobanTransactionDataExt.v0(),
            resources: new xdr.SorobanResources({
              footprint: new xdr.LedgerFootprint({ readOnly: [], readWrite: low }),
              instructions: 0,
              diskReadBytes: 0,
              writeBytes: 0,
            }),
            resourceFee: 0n,
          }),
        )
        .addOperation(Operation.restoreFootprint({}))
        .build();
      const sim = await chain.server.simulateTransaction(restoreDraft);
      if (rpc.Api.isSimulationError(sim)) throw new Error(`restore simulation: ${sim.error}`);
      await restoreFromPreamble(chain, keypair, {
        minResourceFee: sim.minResourceFee,
        transactionData: sim.transactionData,
      }, opts);
      report.restored = archived;
    }
    const [account, fee, head] = await Promise.all([
      chain.server.getAccount(keypair.publicKey()),
      inclusionFeeFor(chain, opts),
      chain.server.getLatestLedger(),
    ]);
    const draft = build(account, fee);
    const sim = await chain.server.simulateTransaction(draft);
    if (rpc.Api.isSimulationError(sim)) throw new Error(`extend simulation: ${sim.error}`);
    const tx: Transaction = rpc.assembleTransaction(draft, sim)
      .setLedgerbounds(
        0,
        head.sequence + 1 + (opts.validForLedgers ?? DEFAULT_VALID_FOR_LEDGERS),
      )
      .build();
    tx.sign(keypair);
    const r = await sendAndConfirm(chain, tx, opts);
    if (r.failed) throw new Error(`ExtendFootprintTtl failed: ${r.failed.opCode ?? "?"}`);
    report.extended = low.length;
    report.txHash = r.hash;
    return report;
  });
}
