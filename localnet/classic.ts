/**
 * Classic operations the node supports: CreateAccount, Payment (native and issued assets)
 * and ChangeTrust, with stellar-core's validity checks (`doCheckValid`, failures reject the
 * transaction at submission) and apply-time result codes (failures are included as FAILED).
 * Results are OperationResult values in stellar-xdr JSON form.
 *
 * @module
 */
import { xdr } from "@stellar/stellar-sdk";
import {
  AUTH_CLAWBACK_ENABLED_FLAG,
  AUTH_REQUIRED_FLAG,
  availableBalance,
  type EntryWriter,
  INT64_MAX,
  issuerOf,
  loadAccount,
  loadTrustline,
  minBalance,
  newAccount,
  putAccount,
  putTrustline,
  TL_AUTHORIZED,
  TL_CLAWBACK_ENABLED,
  toTrustLineAsset,
  validAssetCode,
  withAccount,
  withTrustline,
} from "./accounts.ts";
import { accountIdToG, muxedToG, trustlineKey } from "./util.ts";

/** An OperationResult in stellar-xdr JSON form. */
export type OpResultJson = unknown;

const inner = (op: string, code: string): OpResultJson => ({ op_inner: { [op]: code } });

/** Threshold level an operation needs from its source account. */
export function thresholdLevel(body: xdr.OperationBody): "low" | "medium" | "high" {
  switch (body.type) {
    case "extendFootprintTtl":
    case "restoreFootprint":
    case "bumpSequence":
    case "allowTrust":
    case "setTrustLineFlags":
      return "low";
    case "accountMerge":
      return "high";
    default:
      return "medium";
  }
}

/**
 * stellar-core's `doCheckValid` of a classic op: a failure code rejects the whole
 * transaction at submission (sendTransaction ERROR with txFAILED). Null when valid.
 */
export function checkClassicOp(body: xdr.OperationBody, source: string): OpResultJson | null {
  switch (body.type) {
    case "createAccount": {
      const op = body.createAccountOp;
      if (op.startingBalance < 0n) return inner("create_account", "malformed");
      if (accountIdToG(op.destination) === source) return inner("create_account", "malformed");
      return null;
    }
    case "payment": {
      const op = body.paymentOp;
      if (op.amount <= 0n || !validAssetCode(op.asset)) return inner("payment", "malformed");
      return null;
    }
    case "changeTrust": {
      const op = body.changeTrustOp;
      const line = op.line;
      if (line.type === "assetTypePoolShare") return "op_not_supported";
      if (op.limit < 0n || line.type === "assetTypeNative" || !validAssetCode(line)) {
        return inner("change_trust", "malformed");
      }
      if (issuerOf(line) === source) return inner("change_trust", "malformed");
      return null;
    }
    default:
      return "op_not_supported";
  }
}

/** Outcome of applying one classic op. */
export interface ClassicOutcome {
  ok: boolean;
  result: OpResultJson;
}

/** Applies a (valid) classic op from `source` into `w` at ledger `seq`. */
export function applyClassicOp(
  w: EntryWriter,
  body: xdr.OperationBody,
  source: string,
  seq: number,
): ClassicOutcome {
  switch (body.type) {
    case "createAccount":
      return createAccount(w, body.createAccountOp, source, seq);
    case "payment":
      return payment(w, body.paymentOp, source, seq);
    case "changeTrust":
      return changeTrust(w, body.changeTrustOp, source, seq);
    default:
      return { ok: false, result: "op_not_supported" };
  }
}

const fail = (result: OpResultJson): ClassicOutcome => ({ ok: false, result });

function createAccount(
  w: EntryWriter,
  op: xdr.CreateAccountOp,
  source: string,
  seq: number,
): ClassicOutcome {
  const dest = accountIdToG(op.destination);
  if (loadAccount(w, dest)) return fail(inner("create_account", "already_exist"));
  const fresh = newAccount(dest, op.startingBalance, seq);
  if (op.startingBalance < minBalance(fresh)) return fail(inner("create_account", "low_reserve"));
  const src = loadAccount(w, source)!;
  if (availableBalance(src) < op.startingBalance) {
    return fail(inner("create_account", "underfunded"));
  }
  putAccount(w, source, withAccount(src, { balance: src.balance - op.startingBalance }), seq);
  putAccount(w, dest, fresh, seq);
  return { ok: true, result: inner("create_account", "success") };
}

function payment(w: EntryWriter, op: xdr.PaymentOp, source: string, seq: number): ClassicOutcome {
  const dest = muxedToG(op.destination);
  const amount = op.amount;
  const destAcc = loadAccount(w, dest);
  if (!destAcc) return fail(inner("payment", "no_destination"));
  if (op.asset.type === "assetTypeNative") {
    // Credit first, then debit, like core's path-payment implementation.
    if (dest === source) {
      const src = loadAccount(w, source)!;
      if (availableBalance(src) < amount) return fail(inner("payment", "underfunded"));
      return { ok: true, result: inner("payment", "success") };
    }
    if (destAcc.balance > INT64_MAX - amount) return fail(inner("payment", "line_full"));
    const src = loadAccount(w, source)!;
    if (availableBalance(src) < amount) return fail(inner("payment", "underfunded"));
    putAccount(w, dest, withAccount(destAcc, { balance: destAcc.balance + amount }), seq);
    putAccount(w, source, withAccount(src, { balance: src.balance - amount }), seq);
    return { ok: true, result: inner("payment", "success") };
  }
  const tla = toTrustLineAsset(op.asset);
  const issuer = issuerOf(op.asset)!;
  // Destination side (the issuer receiving its own asset burns it).
  let destLine: xdr.TrustLineEntry | undefined;
  if (dest !== issuer) {
    destLine = loadTrustline(w, dest, tla);
    if (!destLine) return fail(inner("payment", "no_trust"));
    if ((destLine.flags & TL_AUTHORIZED) === 0) return fail(inner("payment", "not_authorized"));
    if (destLine.balance > destLine.limit - amount) return fail(inner("payment", "line_full"));
  }
  // Source side (the issuer sending its own asset mints it).
  let srcLine: xdr.TrustLineEntry | undefined;
  if (source !== issuer) {
    srcLine = dest === source ? destLine : loadTrustline(w, source, tla);
    if (!srcLine) return fail(inner("payment", "src_no_trust"));
    if ((srcLine.flags & TL_AUTHORIZED) === 0) {
      return fail(inner("payment", "src_not_authorized"));
    }
    if (srcLine.balance < amount) return fail(inner("payment", "underfunded"));
  }
  if (dest === source) return { ok: true, result: inner("payment", "success") };
  if (destLine) {
    putTrustline(w, dest, withTrustline(destLine, { balance: destLine.balance + amount }), seq);
  }
  if (srcLine) {
    putTrustline(w, source, withTrustline(srcLine, { balance: srcLine.balance - amount }), seq);
  }
  return { ok: true, result: inner("payment", "success") };
}

function changeTrust(
  w: EntryWriter,
  op: xdr.ChangeTrustOp,
  source: string,
  seq: number,
): ClassicOutcome {
  const line = op.line;
  if (line.type !== "assetTypeCreditAlphanum4" && line.type !== "assetTypeCreditAlphanum12") {
    return fail("op_not_supported");
  }
  const tla = line.type === "assetTypeCreditAlphanum4"
    ? xdr.TrustLineAsset.assetTypeCreditAlphanum4(line.alphaNum4)
    : xdr.TrustLineAsset.assetTypeCreditAlphanum12(line.alphaNum12);
  const issuer = issuerOf(tla)!;
  const existing = loadTrustline(w, source, tla);
  const src = loadAccount(w, source)!;
  if (existing) {
    if (op.limit === 0n) {
      if (existing.balance > 0n) return fail(inner("change_trust", "invalid_limit"));
      w.delete(trustlineKey(source, tla));
      putAccount(w, source, withAccount(src, { numSubEntries: src.numSubEntries - 1 }), seq);
      return { ok: true, result: inner("change_trust", "success") };
    }
    if (op.limit < existing.balance) return fail(inner("change_trust", "invalid_limit"));
    putTrustline(w, source, withTrustline(existing, { limit: op.limit }), seq);
    return { ok: true, result: inner("change_trust", "success") };
  }
  if (op.limit === 0n) return fail(inner("change_trust", "invalid_limit"));
  const issuerAcc = loadAccount(w, issuer);
  if (!issuerAcc) return fail(inner("change_trust", "no_issuer"));
  if (src.balance < minBalance(src, 1)) return fail(inner("change_trust", "low_reserve"));
  let flags = 0;
  if ((issuerAcc.flags & AUTH_REQUIRED_FLAG) === 0) flags |= TL_AUTHORIZED;
  if ((issuerAcc.flags & AUTH_CLAWBACK_ENABLED_FLAG) !== 0) flags |= TL_CLAWBACK_ENABLED;
  putTrustline(
    w,
    source,
    new xdr.TrustLineEntry({
      accountId: src.accountId,
      asset: tla,
      balance: 0n,
      limit: op.limit,
      flags,
      ext: xdr.TrustLineEntryExt.v0(),
    }),
    seq,
  );
  putAccount(w, source, withAccount(src, { numSubEntries: src.numSubEntries + 1 }), seq);
  return { ok: true, result: inner("change_trust", "success") };
}
