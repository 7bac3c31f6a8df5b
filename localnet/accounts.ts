/**
 * Classic account and trustline entries: reading, writing, reserves.
 *
 * @module
 */
import { StrKey, xdr } from "@stellar/stellar-sdk";
import type { LedgerReader } from "./host_api.ts";
import { BASE_RESERVE } from "./constants.ts";
import { accountKey, publicKeyXdr, trustlineKey } from "./util.ts";

/** Something entries can be written to. */
export interface EntryWriter extends LedgerReader {
  set(key: string, entry: xdr.LedgerEntry): void;
  delete(key: string): void;
}

/** Account flags (AccountFlags). */
export const AUTH_REQUIRED_FLAG = 1;
export const AUTH_CLAWBACK_ENABLED_FLAG = 8;
/** Trustline flags (TrustLineFlags). */
export const TL_AUTHORIZED = 1;
export const TL_AUTHORIZED_TO_MAINTAIN_LIABILITIES = 2;
export const TL_CLAWBACK_ENABLED = 4;
/** INT64_MAX: the largest balance/limit. */
export const INT64_MAX = 9_223_372_036_854_775_807n;

/** The account entry of `g`, if it exists. */
export function loadAccount(r: LedgerReader, g: string): xdr.AccountEntry | undefined {
  const e = r.get(accountKey(g));
  return e?.data.type === "account" ? e.data.account : undefined;
}

/** Writes an account entry (stamped with the ledger being built). */
export function putAccount(w: EntryWriter, g: string, acc: xdr.AccountEntry, seq: number): void {
  w.set(
    accountKey(g),
    new xdr.LedgerEntry({
      lastModifiedLedgerSeq: seq,
      data: xdr.LedgerEntryData.account(acc),
      ext: xdr.LedgerEntryExt.v0(),
    }),
  );
}

/** A copy of an account entry with some fields replaced. */
export function withAccount(
  acc: xdr.AccountEntry,
  patch: Partial<{ balance: bigint; seqNum: bigint; numSubEntries: number }>,
): xdr.AccountEntry {
  return new xdr.AccountEntry({
    accountId: acc.accountId,
    balance: patch.balance ?? acc.balance,
    seqNum: patch.seqNum ?? acc.seqNum,
    numSubEntries: patch.numSubEntries ?? acc.numSubEntries,
    inflationDest: acc.inflationDest,
    flags: acc.flags,
    homeDomain: acc.homeDomain,
    thresholds: acc.thresholds,
    signers: acc.signers,
    ext: acc.ext,
  });
}

/** A fresh account entry as CreateAccount makes it (seq = ledgerSeq << 32, master weight 1). */
export function newAccount(g: string, balance: bigint, ledgerSeq: number): xdr.AccountEntry {
  return new xdr.AccountEntry({
    accountId: publicKeyXdr(g),
    balance,
    seqNum: BigInt(ledgerSeq) << 32n,
    numSubEntries: 0,
    inflationDest: null,
    flags: 0,
    homeDomain: "",
    thresholds: new Uint8Array([1, 0, 0, 0]),
    signers: [],
    ext: xdr.AccountEntryExt.v0(),
  });
}

/** Minimum balance of an account: (2 + numSubEntries) × base reserve. */
export function minBalance(acc: xdr.AccountEntry, extraSubEntries = 0): bigint {
  return (2n + BigInt(acc.numSubEntries + extraSubEntries)) * BASE_RESERVE;
}

/** Native balance available above the reserve. */
export function availableBalance(acc: xdr.AccountEntry): bigint {
  return acc.balance - minBalance(acc);
}

/** The trustline of `g` for an issued asset, if it exists. */
export function loadTrustline(
  r: LedgerReader,
  g: string,
  asset: xdr.TrustLineAsset,
): xdr.TrustLineEntry | undefined {
  const e = r.get(trustlineKey(g, asset));
  return e?.data.type === "trustline" ? e.data.trustLine : undefined;
}

/** Writes a trustline entry. */
export function putTrustline(w: EntryWriter, g: string, tl: xdr.TrustLineEntry, seq: number): void {
  w.set(
    trustlineKey(g, tl.asset),
    new xdr.LedgerEntry({
      lastModifiedLedgerSeq: seq,
      data: xdr.LedgerEntryData.trustline(tl),
      ext: xdr.LedgerEntryExt.v0(),
    }),
  );
}

/** A copy of a trustline with balance/limit replaced. */
export function withTrustline(
  tl: xdr.TrustLineEntry,
  patch: Partial<{ balance: bigint; limit: bigint }>,
): xdr.TrustLineEntry {
  return new xdr.TrustLineEntry({
    accountId: tl.accountId,
    asset: tl.asset,
    balance: patch.balance ?? tl.balance,
    limit: patch.limit ?? tl.limit,
    flags: tl.flags,
    ext: tl.ext,
  });
}

/** The issuer (G…) of an issued TrustLineAsset/Asset, or undefined for native. */
export function issuerOf(asset: xdr.TrustLineAsset | xdr.Asset): string | undefined {
  switch (asset.type) {
    case "assetTypeCreditAlphanum4":
      return pkToG(asset.alphaNum4.issuer);
    case "assetTypeCreditAlphanum12":
      return pkToG(asset.alphaNum12.issuer);
    default:
      return undefined;
  }
}

function pkToG(pk: xdr.PublicKey): string {
  return StrKey.encodeEd25519PublicKey(pk.ed25519.value);
}

/** An Asset as a TrustLineAsset (same arms for native/alphanum). */
export function toTrustLineAsset(asset: xdr.Asset): xdr.TrustLineAsset {
  switch (asset.type) {
    case "assetTypeNative":
      return xdr.TrustLineAsset.assetTypeNative();
    case "assetTypeCreditAlphanum4":
      return xdr.TrustLineAsset.assetTypeCreditAlphanum4(asset.alphaNum4);
    case "assetTypeCreditAlphanum12":
      return xdr.TrustLineAsset.assetTypeCreditAlphanum12(asset.alphaNum12);
  }
}

/** Whether an issued asset code is well-formed (alphanumeric, non-empty, zero-padded). */
export function validAssetCode(asset: xdr.Asset | xdr.TrustLineAsset): boolean {
  let code: Uint8Array;
  if (asset.type === "assetTypeCreditAlphanum4") code = asset.alphaNum4.assetCode.value;
  else if (asset.type === "assetTypeCreditAlphanum12") code = asset.alphaNum12.assetCode.value;
  else return asset.type === "assetTypeNative";
  let len = 0;
  while (len < code.length && code[len] !== 0) len++;
  for (let i = len; i < code.length; i++) if (code[i] !== 0) return false;
  if (len === 0) return false;
  if (asset.type === "assetTypeCreditAlphanum12" && len <= 4) return false;
  for (let i = 0; i < len; i++) {
    const c = code[i];
    const ok = (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122);
    if (!ok) return false;
  }
  return true;
}
