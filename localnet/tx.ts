/**
 * Transaction validation (stellar-core's check order) and application.
 *
 * `validateTx` decides whether sendTransaction accepts an envelope (otherwise ERROR with a
 * TransactionResult code, nothing included). `applyTx` charges the fee, consumes the
 * sequence number and runs the operations atomically: an operation failure rolls back every
 * operation but keeps the fee and the sequence bump (FAILED, included in the ledger).
 *
 * @module
 */
import { xdr } from "@stellar/stellar-sdk";
import { availableBalance, issuerOf, loadAccount, putAccount, withAccount } from "./accounts.ts";
import { applyClassicOp, checkClassicOp, type OpResultJson, thresholdLevel } from "./classic.ts";
import { BASE_FEE, TX_LIMITS } from "./constants.ts";
import { nonRefundableFee } from "./fees.ts";
import type { HostApi } from "./host_api.ts";
import type { LedgerInfo } from "./host_api.ts";
import { verifyEd25519 } from "./sig.ts";
import { applySorobanOp, type SorobanOpOutcome } from "./apply_soroban.ts";
import { type Change, type EntryStore, Overlay } from "./store.ts";
import { accountIdToG, muxedToG, sha256, stamp, toHex } from "./util.ts";

/** A transaction accepted for application. */
export interface ParsedTx {
  envelope: xdr.TransactionEnvelope;
  envelopeB64: string;
  tx: xdr.Transaction;
  hash: string;
  source: string;
  ops: { body: xdr.OperationBody; source: string }[];
  /** Soroban transaction data (Soroban transactions only). */
  soroban?: {
    data: xdr.SorobanTransactionData;
    readOnly: string[];
    readWrite: string[];
    /** Resource fee computed from the declared resources. */
    computedFee: bigint;
  };
  /** What the fee source pays at the base inclusion fee (resource fee included). */
  feeCharged: bigint;
  /** The account paying the fee: the source, or a fee bump's fee source. */
  feeSource: string;
  /** Inclusion fee bid of the whole transaction (fee − resource fee; the outer fee of a bump). */
  inclusionBid: bigint;
  /** Set for a fee-bump envelope: the inner transaction's hash. */
  feeBump?: { innerHash: string };
}

/** A rejected envelope: the TransactionResult (JSON form) and optional diagnostics. */
export interface Rejection {
  hash: string;
  result: unknown;
  diagnostic?: string;
}

/** One transaction as applied into a ledger. */
export interface TxRecord {
  hash: string;
  ledger: number;
  /** 1-based application order in its ledger. */
  order: number;
  envelope: xdr.TransactionEnvelope;
  envelopeB64: string;
  source: string;
  /** The account that paid the fee (differs from `source` for a fee bump). */
  feeSource: string;
  feeBump?: { innerHash: string };
  successful: boolean;
  result: xdr.TransactionResult;
  /** Final fee (after the refund): the result's `feeCharged`. */
  feeCharged: bigint;
  /** Fee charged up front, in the ledger's fee processing (the CAP-67 `fee` charge event). */
  feeChargedBefore: bigint;
  /**
   * Refund of the unused refundable resource fee (Soroban only). CAP-63: paid after every
   * transaction of the ledger is applied (`postTxApplyFeeProcessing`), with a negative `fee`
   * event at stage after-all-txs.
   */
  refund: bigint;
  /** Inclusion part of the charged fee (what getFeeStats reports). */
  inclusionFeeCharged: bigint;
  /**
   * Per-operation base fee of its tx set component (the lane's, surge-priced or the network's;
   * set at close, written into the tx set). Unset for a transaction applied outside a ledger.
   */
  txSetBaseFee?: bigint;
  feeChanges: Change[];
  seqChanges: Change[];
  opChanges: Change[][];
  opEvents: xdr.ContractEvent[][];
  diagnosticEvents: xdr.DiagnosticEvent[];
  /** Present for Soroban transactions. */
  soroban?: {
    returnValue?: xdr.ScVal;
    nonRefundableFee: bigint;
    refundableFee: bigint;
    rentFee: bigint;
  };
  /** The refund's entry changes (the ledger's `postTxApplyFeeProcessing`; set at close). */
  refundChanges: Change[];
  /** Close time of its ledger (set when the ledger closes). */
  closeTime: bigint;
  /** Lazily built encodings. */
  cache: {
    resultB64?: string;
    resultBytes?: Uint8Array;
    envelopeBytes?: Uint8Array;
    /** SHA-256 of the envelope bytes (stellar-core's full hash: tx set order). */
    fullHash?: Uint8Array;
    metaB64?: string;
    meta?: xdr.TransactionMeta;
    txEvents?: xdr.TransactionEvent[];
  };
}

/** What validation and application see. */
export interface TxContext {
  store: EntryStore;
  networkId: Uint8Array;
  /** Sequence of the ledger being built. */
  ledgerSeq: number;
  /** Its close time. */
  closeTime: bigint;
  host: HostApi | undefined;
  hostLedger: LedgerInfo;
  /** A Soroban transaction's PRNG seed in its ledger (`localnet/prng.ts`). */
  prngSeed?: Uint8Array;
}

const SOROBAN_OPS = new Set(["invokeHostFunction", "extendFootprintTtl", "restoreFootprint"]);
const OP_JSON_NAME: Record<string, string> = {
  createAccount: "create_account",
  payment: "payment",
  changeTrust: "change_trust",
  invokeHostFunction: "invoke_host_function",
  extendFootprintTtl: "extend_footprint_ttl",
  restoreFootprint: "restore_footprint",
};
const TX_ENVELOPE_TYPE_TX = Uint8Array.from([0, 0, 0, 2]);
const TX_ENVELOPE_TYPE_FEE_BUMP = Uint8Array.from([0, 0, 0, 5]);

/** The network hash of an envelope (what signatures sign). */
export function envelopeHash(env: xdr.TransactionEnvelope, networkId: Uint8Array): string {
  switch (env.type) {
    case "envelopeTypeTx":
      return toHex(sha256(networkId, TX_ENVELOPE_TYPE_TX, env.v1.tx.toXdr()));
    case "envelopeTypeTxFeeBump":
      return toHex(sha256(networkId, TX_ENVELOPE_TYPE_FEE_BUMP, env.feeBump.tx.toXdr()));
    default:
      return toHex(sha256(networkId, env.toXdr()));
  }
}

const txCode = (code: string, fee: bigint): unknown => ({
  fee_charged: fee.toString(),
  result: code,
  ext: "v0",
});

/** The default (successful) OperationResult of an op type, used beside a failing op. */
function defaultOpResult(body: xdr.OperationBody): OpResultJson {
  const n = OP_JSON_NAME[body.type];
  if (!n) return "op_not_supported";
  if (body.type === "invokeHostFunction") {
    return { op_inner: { invoke_host_function: { success: "00".repeat(32) } } };
  }
  return { op_inner: { [n]: "success" } };
}

/** Ed25519 signers of an account: master key (weight thresholds[0]) plus its signers. */
function signersOf(acc: xdr.AccountEntry): { pub: Uint8Array; weight: number }[] {
  const out: { pub: Uint8Array; weight: number }[] = [];
  const master = acc.thresholds.value[0];
  if (master > 0) out.push({ pub: acc.accountId.ed25519.value, weight: master });
  for (const s of acc.signers) {
    if (s.key.type === "signerKeyTypeEd25519" && s.weight > 0) {
      out.push({ pub: s.key.ed25519.value, weight: s.weight });
    }
  }
  return out;
}

/** stellar-core's SignatureChecker: weights of used signatures against a threshold. */
class SignatureChecker {
  readonly used: boolean[];
  #verified = new Map<string, boolean>();
  constructor(readonly hash: Uint8Array, readonly sigs: xdr.DecoratedSignature[]) {
    this.used = sigs.map(() => false);
  }

  #verifies(i: number, pub: Uint8Array): boolean {
    const sig = this.sigs[i];
    const hint = sig.hint.value;
    if (
      hint[0] !== pub[28] || hint[1] !== pub[29] || hint[2] !== pub[30] || hint[3] !== pub[31]
    ) return false;
    const id = `${i}:${toHex(pub)}`;
    let ok = this.#verified.get(id);
    if (ok === undefined) {
      ok = verifyEd25519(pub, this.hash, sig.signature.value);
      this.#verified.set(id, ok);
    }
    return ok;
  }

  /** Whether signatures by `signers` reach `needed` (at least one valid signature). */
  check(signers: { pub: Uint8Array; weight: number }[], needed: number): boolean {
    const left = [...signers];
    let total = 0;
    for (let i = 0; i < this.sigs.length; i++) {
      const j = left.findIndex((s) => this.#verifies(i, s.pub));
      if (j < 0) continue;
      this.used[i] = true;
      total += left[j].weight;
      if (total >= needed) return true;
      left.splice(j, 1);
    }
    return false;
  }

  /** Whether some signature is by `pub` (extra signers). */
  signedBy(pub: Uint8Array): boolean {
    for (let i = 0; i < this.sigs.length; i++) {
      if (this.#verifies(i, pub)) {
        this.used[i] = true;
        return true;
      }
    }
    return false;
  }
}

const THRESHOLD_INDEX = { low: 1, medium: 2, high: 3 } as const;

/** Validates a decoded envelope against the ledger being built. */
export function validateTx(
  ctx: TxContext,
  envelope: xdr.TransactionEnvelope,
  envelopeB64: string,
): ParsedTx | Rejection {
  const hash = envelopeHash(envelope, ctx.networkId);
  if (envelope.type === "envelopeTypeTxFeeBump") {
    return validateFeeBump(ctx, envelope, envelopeB64, hash);
  }
  if (envelope.type !== "envelopeTypeTx") {
    return { hash, result: txCode("tx_not_supported", 0n) };
  }
  return validateV1(ctx, envelope, envelopeB64, hash, envelope.v1.tx, envelope.v1.signatures);
}

/**
 * A fee bump (CAP-15): the outer fee must cover one more operation than the inner
 * transaction at no lower a rate; the fee source signs (low threshold) and pays; the inner
 * transaction is validated as usual except for its own fee and balance.
 */
function validateFeeBump(
  ctx: TxContext,
  envelope: xdr.TransactionEnvelope,
  envelopeB64: string,
  hash: string,
): ParsedTx | Rejection {
  if (envelope.type !== "envelopeTypeTxFeeBump") throw new Error("unreachable");
  const fb = envelope.feeBump.tx;
  const innerEnv = fb.innerTx.v1;
  const inner = innerEnv.tx;
  const ops = inner.operations.length;
  const outerFee = BigInt(fb.fee);
  const resource = inner.ext.type === "sorobanData" ? inner.ext.sorobanData.resourceFee : 0n;
  const minFee = BigInt(BASE_FEE * (ops + 1));
  // What validation errors report as charged (the resource part is the declared fee).
  const charged = minFee + (resource > 0n ? resource : 0n);
  const innerBid = BigInt(inner.fee) - resource;
  const outerBid = outerFee - resource;
  if (outerBid < minFee || outerBid * BigInt(Math.max(ops, 1)) < innerBid * BigInt(ops + 1)) {
    return { hash, result: txCode("tx_insufficient_fee", charged) };
  }
  const feeSource = muxedToG(fb.feeSource);
  const acc = loadAccount(ctx.store, feeSource);
  if (!acc) return { hash, result: txCode("tx_no_account", charged) };
  const checker = new SignatureChecker(hexBytes(hash), envelope.feeBump.signatures);
  if (!checker.check(signersOf(acc), acc.thresholds.value[THRESHOLD_INDEX.low])) {
    return { hash, result: txCode("tx_bad_auth", charged) };
  }
  if (availableBalance(acc) < outerFee) {
    return { hash, result: txCode("tx_insufficient_balance", charged) };
  }
  if (checker.used.some((u) => !u)) {
    return { hash, result: txCode("tx_bad_auth_extra", charged) };
  }
  const innerHash = toHex(sha256(ctx.networkId, TX_ENVELOPE_TYPE_TX, inner.toXdr()));
  const v = validateV1(ctx, envelope, envelopeB64, innerHash, inner, innerEnv.signatures, {
    feeSource,
  });
  if ("result" in v) {
    return {
      hash,
      result: {
        fee_charged: charged.toString(),
        result: { tx_fee_bump_inner_failed: { transaction_hash: innerHash, result: v.result } },
        ext: "v0",
      },
      diagnostic: v.diagnostic,
    };
  }
  return {
    ...v,
    hash,
    feeSource,
    feeCharged: v.feeCharged + BigInt(BASE_FEE),
    inclusionBid: outerBid,
    feeBump: { innerHash },
  };
}

/** A v1 transaction (alone, or inside a fee bump when `bump` is given). */
function validateV1(
  ctx: TxContext,
  envelope: xdr.TransactionEnvelope,
  envelopeB64: string,
  hash: string,
  tx: xdr.Transaction,
  signatures: xdr.DecoratedSignature[],
  bump?: { feeSource: string },
): ParsedTx | Rejection {
  const ops = tx.operations;
  const classicFee = BigInt(BASE_FEE * Math.max(ops.length, 1));
  // 1. operations present
  if (ops.length === 0) return { hash, result: txCode("tx_missing_operation", classicFee) };
  // 2. Soroban shape
  const isSoroban = ops.some((o) => SOROBAN_OPS.has(o.body.type));
  if (isSoroban && ops.length !== 1) return { hash, result: txCode("tx_malformed", classicFee) };
  if (isSoroban && tx.ext.type !== "sorobanData") {
    return { hash, result: txCode("tx_malformed", classicFee) };
  }
  if (!isSoroban && tx.ext.type !== "v0") {
    return { hash, result: txCode("tx_malformed", classicFee) };
  }
  // 3. Soroban resources
  let soroban: ParsedTx["soroban"];
  let feeCharged = classicFee;
  if (isSoroban && tx.ext.type === "sorobanData") {
    const data = tx.ext.sorobanData;
    const declaredFee = data.resourceFee;
    const res = data.resources;
    const readOnly = res.footprint.readOnly.map((k) => k.toXdr("base64"));
    const readWrite = res.footprint.readWrite.map((k) => k.toXdr("base64"));
    // Non-refundable part from the declared resources and the envelope's real size; the
    // rest of the declared resource fee is the refundable budget (events, rent).
    const computedFee = nonRefundableFee({
      instructions: res.instructions,
      diskReadEntries: [...res.footprint.readOnly, ...res.footprint.readWrite]
        .filter(isDiskEntry).length,
      writeEntries: readWrite.length,
      diskReadBytes: res.diskReadBytes,
      writeBytes: res.writeBytes,
      txSizeBytes: b64Size(envelopeB64),
    }, ctx.store.fees);
    // Charged up front: the whole declared resource fee; the unused refundable part is
    // refunded after execution.
    feeCharged = BigInt(BASE_FEE) + declaredFee;
    const invalid = (msg: string): Rejection => ({
      hash,
      result: txCode("tx_soroban_invalid", BigInt(BASE_FEE) + declaredFee),
      diagnostic: msg,
    });
    const limits = ctx.store.limits ?? TX_LIMITS;
    if (
      res.instructions > limits.instructions || res.diskReadBytes > limits.diskReadBytes ||
      res.writeBytes > limits.writeBytes ||
      readOnly.length + readWrite.length > limits.readEntries ||
      readWrite.length > limits.writeEntries
    ) return invalid("transaction resources exceed network config limits");
    if (envelopeB64.length * 3 / 4 > limits.txSizeBytes && !bump) {
      return invalid("transaction size exceeds network config limit");
    }
    const all = [...res.footprint.readOnly, ...res.footprint.readWrite];
    for (const k of all) {
      if (!validFootprintKey(k)) {
        return invalid("transaction footprint contains an unsupported key");
      }
    }
    if (new Set([...readOnly, ...readWrite]).size !== readOnly.length + readWrite.length) {
      return invalid("transaction footprint contains a duplicate key");
    }
    if (declaredFee < 0n || declaredFee > BigInt(tx.fee)) {
      return invalid("transaction resource fee is greater than the full fee");
    }
    if (declaredFee < computedFee) {
      return invalid(
        `transaction resource fee ${declaredFee} is lower than the minimum ${computedFee} for its declared resources`,
      );
    }
    soroban = { data, readOnly, readWrite, computedFee };
  }
  // 4. time and ledger bounds
  const bounds = timeAndLedgerBounds(tx.cond);
  if (bounds.time) {
    // Clients derive time bounds from their own clock, which knows nothing of test time travel
    // (closeLedgers/advanceTime run ledger time ahead): compare with the wall clock, so
    // advancing ledger time does not make every SDK-built transaction txTOO_LATE.
    const clientTime = BigInt(Math.floor(Date.now() / 1000));
    if (bounds.time.minTime > clientTime) {
      return { hash, result: txCode("tx_too_early", feeCharged) };
    }
    if (bounds.time.maxTime !== 0n && bounds.time.maxTime < clientTime) {
      return { hash, result: txCode("tx_too_late", feeCharged) };
    }
  }
  if (bounds.ledger) {
    if (bounds.ledger.minLedger > ctx.ledgerSeq) {
      return { hash, result: txCode("tx_too_early", feeCharged) };
    }
    if (bounds.ledger.maxLedger !== 0 && bounds.ledger.maxLedger <= ctx.ledgerSeq) {
      return { hash, result: txCode("tx_too_late", feeCharged) };
    }
  }
  // 5. inclusion fee
  const inclusionFee = BigInt(tx.fee) - (soroban ? soroban.data.resourceFee : 0n);
  if (!bump && inclusionFee < BigInt(BASE_FEE * ops.length)) {
    return { hash, result: txCode("tx_insufficient_fee", feeCharged) };
  }
  // 6. source account
  const source = muxedToG(tx.sourceAccount);
  const acc = loadAccount(ctx.store, source);
  if (!acc) return { hash, result: txCode("tx_no_account", feeCharged) };
  // 7. sequence number
  const minSeq = bounds.minSeqNum;
  const seqOk = minSeq === null
    ? tx.seqNum === acc.seqNum + 1n
    : minSeq <= acc.seqNum && acc.seqNum < tx.seqNum;
  if (!seqOk || tx.seqNum === BigInt(ctx.ledgerSeq) << 32n) {
    return { hash, result: txCode("tx_bad_seq", feeCharged) };
  }
  // 8. signatures (low threshold of the source)
  const checker = new SignatureChecker(hexBytes(hash), signatures);
  if (!checker.check(signersOf(acc), acc.thresholds.value[THRESHOLD_INDEX.low])) {
    return { hash, result: txCode("tx_bad_auth", feeCharged) };
  }
  for (const s of bounds.extraSigners) {
    if (s.type !== "signerKeyTypeEd25519" || !checker.signedBy(s.ed25519.value)) {
      return { hash, result: txCode("tx_bad_auth", feeCharged) };
    }
  }
  // 9. fee balance
  if (!bump && availableBalance(acc) < BigInt(tx.fee)) {
    return { hash, result: txCode("tx_insufficient_balance", feeCharged) };
  }
  // Operations: source account, signature threshold, validity.
  const parsedOps: ParsedTx["ops"] = [];
  const opResults: OpResultJson[] = [];
  let opsValid = true;
  for (const op of ops) {
    const opSource = op.sourceAccount ? muxedToG(op.sourceAccount) : source;
    parsedOps.push({ body: op.body, source: opSource });
    const opAcc = opSource === source ? acc : loadAccount(ctx.store, opSource);
    let r: OpResultJson | null = null;
    if (!opAcc) r = "op_no_account";
    else if (
      !checker.check(
        signersOf(opAcc),
        opAcc.thresholds.value[THRESHOLD_INDEX[thresholdLevel(op.body)]],
      )
    ) r = "op_bad_auth";
    else if (!SOROBAN_OPS.has(op.body.type)) r = checkClassicOp(op.body, opSource);
    if (r !== null) opsValid = false;
    opResults.push(r ?? defaultOpResult(op.body));
  }
  if (!opsValid) {
    return {
      hash,
      result: { fee_charged: feeCharged.toString(), result: { tx_failed: opResults }, ext: "v0" },
    };
  }
  if (checker.used.some((u) => !u)) {
    return { hash, result: txCode("tx_bad_auth_extra", feeCharged) };
  }
  return {
    envelope,
    envelopeB64,
    tx,
    hash,
    source,
    ops: parsedOps,
    soroban,
    feeCharged,
    feeSource: bump?.feeSource ?? source,
    inclusionBid: inclusionFee,
  };
}

/** Decoded byte length of a base64 string. */
export function b64Size(b64: string): number {
  const pad = b64.endsWith("==") ? 2 : b64.endsWith("=") ? 1 : 0;
  return (b64.length * 3) / 4 - pad;
}

/** Whether a footprint key is read from disk (classic entries; live Soroban state is in memory). */
export function isDiskEntry(k: xdr.LedgerKey): boolean {
  return k.type !== "contractData" && k.type !== "contractCode";
}

function hexBytes(hex: string): Uint8Array {
  const out = new Uint8Array(hex.length / 2);
  for (let i = 0; i < out.length; i++) out[i] = parseInt(hex.substr(i * 2, 2), 16);
  return out;
}

function timeAndLedgerBounds(cond: xdr.Preconditions): {
  time: xdr.TimeBounds | null;
  ledger: xdr.LedgerBounds | null;
  minSeqNum: bigint | null;
  extraSigners: xdr.SignerKey[];
} {
  switch (cond.type) {
    case "precondNone":
      return { time: null, ledger: null, minSeqNum: null, extraSigners: [] };
    case "precondTime":
      return { time: cond.timeBounds, ledger: null, minSeqNum: null, extraSigners: [] };
    case "precondV2":
      return {
        time: cond.v2.timeBounds,
        ledger: cond.v2.ledgerBounds,
        minSeqNum: cond.v2.minSeqNum,
        extraSigners: cond.v2.extraSigners,
      };
  }
}

/** Footprint keys a Soroban transaction may declare. */
function validFootprintKey(k: xdr.LedgerKey): boolean {
  switch (k.type) {
    case "account":
    case "contractData":
    case "contractCode":
      return true;
    case "trustline": {
      const a = k.trustLine.asset;
      if (a.type !== "assetTypeCreditAlphanum4" && a.type !== "assetTypeCreditAlphanum12") {
        return false;
      }
      return issuerOf(a) !== accountIdToG(k.trustLine.accountId);
    }
    default:
      return false;
  }
}

/** A transaction whose fee is charged and sequence number consumed, not yet applied. */
export interface ChargedTx {
  p: ParsedTx;
  /** What was charged (the whole declared fee, or the fee source's balance if lower). */
  fee: bigint;
  /** Inclusion part of the charge. */
  inclusion: bigint;
  feeChanges: Change[];
  seqChanges: Change[];
}

/**
 * stellar-core's fee and sequence processing of one transaction (CAP-63: done for every
 * transaction of the ledger, in application order, before any is applied). `inclusionFee` is
 * what the ledger charges for inclusion (base fee, or the surge price).
 */
export function chargeTx(ctx: TxContext, p: ParsedTx, inclusionFee?: bigint): ChargedTx {
  const seq = ctx.ledgerSeq;
  const store = ctx.store;
  const opsCharged = BigInt(p.ops.length + (p.feeBump ? 1 : 0));
  const baseInclusion = BigInt(BASE_FEE) * opsCharged;
  const inclusion = inclusionFee === undefined
    ? baseInclusion
    : (inclusionFee / BigInt(p.ops.length)) * opsCharged;
  const wanted = p.feeCharged - baseInclusion + inclusion;
  const acc0 = loadAccount(store, p.feeSource)!;
  const fee = wanted > acc0.balance ? acc0.balance : wanted;
  const feeWriter = new Overlay(store);
  putAccount(feeWriter, p.feeSource, withAccount(acc0, { balance: acc0.balance - fee }), seq);
  const feeChanges = commit(store, feeWriter, seq);
  const acc1 = loadAccount(store, p.source)!;
  const seqWriter = new Overlay(store);
  putAccount(seqWriter, p.source, withAccount(acc1, { seqNum: p.tx.seqNum }), seq);
  const seqChanges = commit(store, seqWriter, seq);
  return { p, fee, inclusion, feeChanges, seqChanges };
}

/**
 * Applies a validated transaction into the store (fee, sequence, operations); returns its
 * record (ledger fields unset). The Soroban refund is computed but not paid: see
 * {@link payRefund}. A ledger charges every transaction first ({@link chargeTx}) and applies
 * them with {@link applyCharged}; this is both in one, for a lone transaction.
 */
export function applyTx(ctx: TxContext, p: ParsedTx, inclusionFee?: bigint): TxRecord {
  return applyCharged(ctx, chargeTx(ctx, p, inclusionFee));
}

/** Runs the operations of a charged transaction atomically; returns its record. */
export function applyCharged(ctx: TxContext, c: ChargedTx): TxRecord {
  const { p, fee, inclusion, feeChanges, seqChanges } = c;
  const seq = ctx.ledgerSeq;
  const store = ctx.store;
  // Operations, atomically.
  const txView = new Overlay(store);
  const opWrites: Overlay[] = [];
  const opResults: OpResultJson[] = [];
  const opEvents: xdr.ContractEvent[][] = [];
  let diagnosticEvents: xdr.DiagnosticEvent[] = [];
  let ok = true;
  let sorobanOut: SorobanOpOutcome | undefined;
  for (const op of p.ops) {
    const opView = new Overlay(txView);
    let r: { ok: boolean; result: OpResultJson };
    if (SOROBAN_OPS.has(op.body.type)) {
      sorobanOut = applySorobanOp(ctx, opView, op.body, op.source, p.soroban!);
      r = sorobanOut;
      diagnosticEvents = sorobanOut.diagnosticEvents;
      opEvents.push(sorobanOut.ok ? sorobanOut.events : []);
    } else {
      r = applyClassicOp(opView, op.body, op.source, seq);
      opEvents.push([]);
    }
    opResults.push(r.result);
    if (!r.ok) ok = false;
    for (const [k, v] of opView.writes) txView.writes.set(k, v);
    opWrites.push(opView);
  }
  const opChanges: Change[][] = [];
  if (ok) {
    for (const w of opWrites) opChanges.push(commit(store, w, seq));
    if (sorobanOut?.ttlExtensions) {
      for (const [k, until] of sorobanOut.ttlExtensions) store.extendTtl(k, until);
    }
    if (sorobanOut?.restored) {
      for (const [k, until] of sorobanOut.restored) store.restoreEntry(k, until);
    }
  } else {
    for (let i = 0; i < p.ops.length; i++) {
      opChanges.push([]);
      opEvents[i] = [];
    }
  }
  // The unused refundable part of the declared resource fee (all of it on failure), as
  // stellar-core's RefundableFeeTracker computes it. It is paid after the whole ledger is
  // applied (payRefund), but the result already carries the final fee, as core's does.
  let refund = 0n;
  let refundableCharged = 0n;
  if (p.soroban) {
    const declared = p.soroban.data.resourceFee;
    refundableCharged = ok ? sorobanOut?.refundableFee ?? 0n : 0n;
    const keep = inclusion + p.soroban.computedFee + refundableCharged;
    if (fee > keep && declared > 0n) refund = fee - keep;
  }
  const charged = fee - refund;
  const inner = ok ? { tx_success: opResults } : { tx_failed: opResults };
  const result = xdr.TransactionResult.fromJson({
    fee_charged: charged.toString(),
    result: p.feeBump
      ? {
        [ok ? "tx_fee_bump_inner_success" : "tx_fee_bump_inner_failed"]: {
          transaction_hash: p.feeBump.innerHash,
          result: { fee_charged: "0", result: inner, ext: "v0" },
        },
      }
      : inner,
    ext: "v0",
    // deno-lint-ignore no-explicit-any
  } as any);
  return {
    hash: p.hash,
    ledger: seq,
    order: 0,
    envelope: p.envelope,
    envelopeB64: p.envelopeB64,
    source: p.source,
    feeSource: p.feeSource,
    feeBump: p.feeBump,
    successful: ok,
    result,
    feeCharged: charged,
    feeChargedBefore: fee,
    refund,
    inclusionFeeCharged: inclusion,
    refundChanges: [],
    feeChanges,
    seqChanges,
    opChanges,
    opEvents,
    diagnosticEvents,
    soroban: p.soroban
      ? {
        returnValue: ok ? sorobanOut?.returnValue : undefined,
        nonRefundableFee: p.soroban.computedFee,
        refundableFee: refundableCharged,
        rentFee: ok ? sorobanOut?.rentFee ?? 0n : 0n,
      }
      : undefined,
    closeTime: ctx.closeTime,
    cache: {},
  };
}

/**
 * Pays a Soroban transaction's refund to its fee source (CAP-63: after every transaction of the
 * ledger is applied); the changes are its `postTxApplyFeeProcessing`.
 */
export function payRefund(store: EntryStore, t: TxRecord, seq: number): void {
  if (t.refund <= 0n) return;
  const acc = loadAccount(store, t.feeSource);
  if (!acc) return;
  const w = new Overlay(store);
  putAccount(w, t.feeSource, withAccount(acc, { balance: acc.balance + t.refund }), seq);
  t.refundChanges = commit(store, w, seq);
}

/** Commits an overlay's writes into the store (stamped with `seq`), returning the changes. */
export function commit(store: EntryStore, w: Overlay, seq: number): Change[] {
  const out: Change[] = [];
  for (const [key, entry] of w.writes) {
    const before = store.get(key);
    if (entry === null && before === undefined) continue;
    out.push(store.put(key, entry === null ? undefined : stamp(entry, seq)));
  }
  return out;
}
