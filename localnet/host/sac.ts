/**
 * The built-in Stellar Asset Contract, following rs-soroban-env's `stellar_asset_contract`:
 * the same functions, storage layout, errors (`Error(Contract, #N)` with the host's
 * diagnostic messages) and events (SEP-11 asset name as the last topic; `mint`/`burn` instead
 * of `transfer` when the issuer is on one side, CAP-67).
 *
 * Balances: G holders use classic entries (the account balance for native, respecting the
 * reserve; trustlines for issued assets; the issuer has an unlimited balance and no
 * trustline); C holders use persistent `Vec[Balance, Address] → {amount, authorized, clawback}`.
 * Allowances are temporary `Vec[Allowance, {from, spender}] → {amount, live_until_ledger}`.
 *
 * @module
 */
import { Asset, StrKey, xdr } from "@stellar/stellar-sdk";
import { defineSpec, T } from "../../contracts/sdk.ts";
import { addressScVal, i128Of, i128Val } from "./codec.ts";
import { accountBytes, addressFromScAddress } from "./keys.ts";
import { accountKey, inheritSize, trustlineKey } from "./xdr_fast.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** What the SAC needs from the host, for the current SAC frame. */
export interface SacCtx {
  /** This SAC's address (C…). */
  readonly contract: string;
  readonly ledgerSeq: number;
  /** ledgerSeq + maxEntryTtl − 1. */
  readonly maxLiveUntil: number;
  /** Base reserve in stroops. */
  readonly baseReserve: number;
  instanceGet(key: xdr.ScVal): xdr.ScVal | undefined;
  instanceSet(key: xdr.ScVal, val: xdr.ScVal): void;
  /** Contract data of this contract (durability 0 temporary, 1 persistent); footprint-checked. */
  dataGet(key: xdr.ScVal, durability: 0 | 1): xdr.ScVal | undefined;
  dataPut(key: xdr.ScVal, val: xdr.ScVal, durability: 0 | 1): void;
  dataExtend(key: xdr.ScVal, durability: 0 | 1, liveUntil: number): void;
  /** A classic entry (account/trustline) by base64 LedgerKey; footprint-checked. */
  entryGet(key: string): xdr.LedgerEntry | undefined;
  entryPut(key: string, entry: xdr.LedgerEntry): void;
  /** `address.require_auth()` for the current call and its full arguments. */
  requireAuth(address: string): void;
  emit(topics: xdr.ScVal[], data: xdr.ScVal): void;
  /** Creates a host error (and records its diagnostic event). */
  err(type: string, code: number | string, msg: string, args?: xdr.ScVal[]): Error;
}

/** The SAC interface (as the SDK's `SAC_SPEC`), used to encode in-process calls to a SAC. */
export const SAC_SPEC_ENTRIES: xdr.ScSpecEntry[] = defineSpec({
  functions: [
    { name: "allowance", inputs: [["from", T.address], ["spender", T.address]], output: T.i128 },
    { name: "authorized", inputs: [["id", T.address]], output: T.bool },
    {
      name: "approve",
      inputs: [["from", T.address], ["spender", T.address], ["amount", T.i128], [
        "expiration_ledger",
        T.u32,
      ]],
    },
    { name: "balance", inputs: [["id", T.address]], output: T.i128 },
    { name: "burn", inputs: [["from", T.address], ["amount", T.i128]] },
    {
      name: "burn_from",
      inputs: [["spender", T.address], ["from", T.address], ["amount", T.i128]],
    },
    { name: "clawback", inputs: [["from", T.address], ["amount", T.i128]] },
    { name: "decimals", output: T.u32 },
    { name: "mint", inputs: [["to", T.address], ["amount", T.i128]] },
    { name: "name", output: T.string },
    { name: "set_admin", inputs: [["new_admin", T.address]] },
    { name: "admin", output: T.address },
    { name: "set_authorized", inputs: [["id", T.address], ["authorize", T.bool]] },
    { name: "symbol", output: T.string },
    { name: "transfer", inputs: [["from", T.address], ["to", T.address], ["amount", T.i128]] },
    {
      name: "transfer_from",
      inputs: [["spender", T.address], ["from", T.address], ["to", T.address], ["amount", T.i128]],
    },
  ],
});

// Contract error codes (builtin_contracts/contract_error.rs).
const E_NOT_SUPPORTED = 2;
const E_ACCOUNT_MISSING = 6;
const E_NEGATIVE = 8;
const E_ALLOWANCE = 9;
const E_BALANCE = 10;
const E_DEAUTHORIZED = 11;
const E_OVERFLOW = 12;
const E_TRUSTLINE_MISSING = 13;

const I64_MAX = (1n << 63n) - 1n;

// Account flags and trustline flags.
const AUTH_REQUIRED = 0x1;
const AUTH_REVOCABLE = 0x2;
const AUTH_CLAWBACK_ENABLED = 0x8;
const TL_AUTHORIZED = 0x1;
const TL_MAINTAIN_LIABILITIES = 0x2;
const TL_CLAWBACK_ENABLED = 0x4;

const DAY_IN_LEDGERS = 17280;
const BALANCE_EXTEND_AMOUNT = 30 * DAY_IN_LEDGERS;
const BALANCE_TTL_THRESHOLD = BALANCE_EXTEND_AMOUNT - DAY_IN_LEDGERS;

const sym = (s: string) => xdr.ScVal.scvSymbol(s);
const KEY_METADATA = sym("METADATA");
const KEY_ADMIN = xdr.ScVal.scvVec([sym("Admin")]);
const KEY_ASSET_INFO = xdr.ScVal.scvVec([sym("AssetInfo")]);

/** What the SAC knows of its asset. */
interface AssetInfo {
  native: boolean;
  /** Raw asset code bytes (4 or 12), for trustline keys. */
  code?: Uint8Array;
  /** Issuer G address and raw key. */
  issuer?: string;
  issuerBytes?: Uint8Array;
  /** SEP-11 name (the last event topic). */
  name: xdr.ScVal;
}

function mapGet(m: xdr.ScVal, name: string): xdr.ScVal | undefined {
  for (const e of ((m as Any).map ?? []) as xdr.ScMapEntry[]) {
    if (e.key.type === "scvSymbol" && String((e.key as Any).sym) === name) return e.val;
  }
  return undefined;
}

function structVal(fields: [string, xdr.ScVal][]): xdr.ScVal {
  // Field names given in sorted order by the callers.
  return xdr.ScVal.scvMap(fields.map(([k, v]) => new xdr.ScMapEntry({ key: sym(k), val: v })));
}

const assetInfoCache = new Map<string, AssetInfo>();

function readAssetInfo(ctx: SacCtx): AssetInfo {
  const cached = assetInfoCache.get(ctx.contract);
  if (cached) {
    // Still an instance read (footprint), as the real SAC reads instance storage.
    ctx.instanceGet(KEY_ASSET_INFO);
    return cached;
  }
  const v = ctx.instanceGet(KEY_ASSET_INFO);
  const md = ctx.instanceGet(KEY_METADATA);
  if (!v || !md) throw ctx.err("Storage", "MissingValue", "asset info is missing");
  const items = (v as Any).vec as xdr.ScVal[];
  const tag = String((items[0] as Any).sym);
  const name = mapGet(md, "name")!;
  let info: AssetInfo;
  if (tag === "Native") info = { native: true, name };
  else {
    const m = items[1];
    const code: Uint8Array = (mapGet(m, "asset_code") as Any).str.bytes;
    const issuerBytes: Uint8Array = (mapGet(m, "issuer") as Any).bytes.value;
    const padded = new Uint8Array(tag === "AlphaNum4" ? 4 : 12);
    padded.set(code.subarray(0, padded.length));
    info = {
      native: false,
      code: padded,
      issuerBytes,
      issuer: StrKey.encodeEd25519PublicKey(issuerBytes as Any),
      name,
    };
  }
  assetInfoCache.set(ctx.contract, info);
  return info;
}

// ---------------------------------------------------------------------------------------------
// Argument decoding
// ---------------------------------------------------------------------------------------------

interface Muxed {
  address: string;
  id?: bigint;
}

function argAddress(ctx: SacCtx, v: xdr.ScVal): string {
  if (v.type !== "scvAddress") {
    throw ctx.err("Value", "UnexpectedType", "expected an address argument");
  }
  const a = (v as Any).address as xdr.ScAddress;
  if (a.type !== "scAddressTypeAccount" && a.type !== "scAddressTypeContract") {
    throw ctx.err("Value", "UnexpectedType", "expected an account or contract address");
  }
  return addressFromScAddress(a);
}

function argMuxed(ctx: SacCtx, v: xdr.ScVal): Muxed {
  if (v.type === "scvAddress" && (v as Any).address.type === "scAddressTypeMuxedAccount") {
    const m = (v as Any).address.muxedAccount;
    return {
      address: StrKey.encodeEd25519PublicKey(m.ed25519.value ?? m.ed25519),
      id: BigInt(m.id),
    };
  }
  return { address: argAddress(ctx, v) };
}

function argI128(ctx: SacCtx, v: xdr.ScVal): bigint {
  if (v.type !== "scvI128") throw ctx.err("Value", "UnexpectedType", "expected an i128 argument");
  return i128Of(v);
}

function argU32(ctx: SacCtx, v: xdr.ScVal): number {
  if (v.type !== "scvU32") throw ctx.err("Value", "UnexpectedType", "expected a u32 argument");
  return (v as Any).u32;
}

function argBool(ctx: SacCtx, v: xdr.ScVal): boolean {
  if (v.type !== "scvBool") throw ctx.err("Value", "UnexpectedType", "expected a bool argument");
  return (v as Any).b;
}

// ---------------------------------------------------------------------------------------------
// Balances
// ---------------------------------------------------------------------------------------------

function balanceKey(addr: string): xdr.ScVal {
  return xdr.ScVal.scvVec([sym("Balance"), addressScVal(addr)]);
}

interface BalanceValue {
  amount: bigint;
  authorized: boolean;
  clawback: boolean;
}

function readContractBalance(ctx: SacCtx, addr: string): BalanceValue | undefined {
  const v = ctx.dataGet(balanceKey(addr), 1);
  if (!v) return undefined;
  return {
    amount: i128Of(mapGet(v, "amount")!),
    authorized: (mapGet(v, "authorized") as Any).b,
    clawback: (mapGet(v, "clawback") as Any).b,
  };
}

function writeContractBalance(ctx: SacCtx, addr: string, b: BalanceValue): void {
  const key = balanceKey(addr);
  ctx.dataPut(
    key,
    structVal([
      ["amount", i128Val(b.amount)],
      ["authorized", xdr.ScVal.scvBool(b.authorized)],
      ["clawback", xdr.ScVal.scvBool(b.clawback)],
    ]),
    1,
  );
  ctx.dataExtend(key, 1, ctx.ledgerSeq + BALANCE_EXTEND_AMOUNT);
}

function issuerFlags(ctx: SacCtx, info: AssetInfo): number {
  if (info.native) return 0;
  const e = ctx.entryGet(accountKey(info.issuerBytes!));
  if (!e) {
    throw ctx.err("Storage", "MissingValue", "trying to get non-existing value for account", [
      addressScVal(info.issuer!),
    ]);
  }
  return (e.data as Any).account.flags;
}

function accountEntryOf(ctx: SacCtx, g: string): [string, xdr.LedgerEntry] {
  const key = accountKey(accountBytes(g));
  const e = ctx.entryGet(key);
  if (!e) {
    throw ctx.err("Contract", E_ACCOUNT_MISSING, "account entry is missing", [addressScVal(g)]);
  }
  return [key, e];
}

function trustlineOf(ctx: SacCtx, info: AssetInfo, g: string): [string, xdr.LedgerEntry] {
  const key = trustlineKey(accountBytes(g), info.code!, info.issuerBytes!);
  const e = ctx.entryGet(key);
  if (!e) {
    throw ctx.err("Contract", E_TRUSTLINE_MISSING, "trustline entry is missing for account", [
      addressScVal(g),
    ]);
  }
  return [key, e];
}

function minMaxAccountBalance(ctx: SacCtx, ae: Any): [bigint, bigint] {
  const reserve = BigInt(ctx.baseReserve);
  if (ae.ext.type === "v1") {
    const v1 = ae.ext.v1;
    let entries = 2n + BigInt(ae.numSubEntries);
    if (v1.ext.type === "v2") {
      entries += BigInt(v1.ext.v2.numSponsoring) - BigInt(v1.ext.v2.numSponsored);
    }
    return [
      entries * reserve + BigInt(v1.liabilities.selling),
      I64_MAX - BigInt(v1.liabilities.buying),
    ];
  }
  return [(2n + BigInt(ae.numSubEntries)) * reserve, I64_MAX];
}

function minMaxTrustline(tl: Any): [bigint, bigint] {
  if (tl.ext.type === "v1") {
    const l = tl.ext.v1.liabilities;
    return [BigInt(l.selling), BigInt(tl.limit) - BigInt(l.buying)];
  }
  return [0n, BigInt(tl.limit)];
}

function withAccountBalance(e: xdr.LedgerEntry, balance: bigint, seq: number): xdr.LedgerEntry {
  const ae = (e.data as Any).account as xdr.AccountEntry;
  const next = new xdr.AccountEntry({ ...(ae as Any), balance });
  const out = new xdr.LedgerEntry({
    lastModifiedLedgerSeq: seq,
    data: xdr.LedgerEntryData.account(next),
    ext: e.ext,
  });
  inheritSize(out, e);
  return out;
}

function withTrustline(
  e: xdr.LedgerEntry,
  change: { balance?: bigint; flags?: number },
  seq: number,
): xdr.LedgerEntry {
  const tl = (e.data as Any).trustLine as xdr.TrustLineEntry;
  const next = new xdr.TrustLineEntry({ ...(tl as Any), ...change });
  const out = new xdr.LedgerEntry({
    lastModifiedLedgerSeq: seq,
    data: xdr.LedgerEntryData.trustline(next),
    ext: e.ext,
  });
  inheritSize(out, e);
  return out;
}

function classicBalance(ctx: SacCtx, info: AssetInfo, g: string): bigint {
  if (info.native) {
    const [, e] = accountEntryOf(ctx, g);
    return BigInt((e.data as Any).account.balance);
  }
  if (g === info.issuer) return I64_MAX;
  const [, e] = trustlineOf(ctx, info, g);
  return BigInt((e.data as Any).trustLine.balance);
}

function transferClassic(ctx: SacCtx, info: AssetInfo, g: string, amount: bigint): void {
  if (info.native) {
    const [key, e] = accountEntryOf(ctx, g);
    const ae = (e.data as Any).account;
    const [min, max] = minMaxAccountBalance(ctx, ae);
    const next = BigInt(ae.balance) + amount;
    if (next < min || next > max) {
      throw ctx.err("Contract", E_BALANCE, "resulting balance is not within the allowed range", [
        i64Val(min),
        i64Val(next),
        i64Val(max),
      ]);
    }
    ctx.entryPut(key, withAccountBalance(e, next, ctx.ledgerSeq));
    return;
  }
  if (g === info.issuer) return;
  const [key, e] = trustlineOf(ctx, info, g);
  const tl = (e.data as Any).trustLine;
  const [min, max] = minMaxTrustline(tl);
  const next = BigInt(tl.balance) + amount;
  if (next < min || next > max) {
    throw ctx.err("Contract", E_BALANCE, "resulting balance is not within the allowed range", [
      i64Val(min),
      i64Val(next),
      i64Val(max),
    ]);
  }
  ctx.entryPut(key, withTrustline(e, { balance: next }, ctx.ledgerSeq));
}

function i64Val(n: bigint): xdr.ScVal {
  return xdr.ScVal.scvI64(n as Any);
}

function isG(a: string): boolean {
  return a.charCodeAt(0) === 71; // "G"
}

function readBalance(ctx: SacCtx, info: AssetInfo, addr: string): bigint {
  if (isG(addr)) return classicBalance(ctx, info, addr);
  const b = readContractBalance(ctx, addr);
  if (b) ctx.dataExtend(balanceKey(addr), 1, ctx.ledgerSeq + BALANCE_EXTEND_AMOUNT);
  return b ? b.amount : 0n;
}

function isAuthorized(ctx: SacCtx, info: AssetInfo, addr: string): boolean {
  if (isG(addr)) {
    if (info.native || addr === info.issuer) return true;
    const [, e] = trustlineOf(ctx, info, addr);
    return ((e.data as Any).trustLine.flags & TL_AUTHORIZED) !== 0;
  }
  const b = readContractBalance(ctx, addr);
  if (b) return b.authorized;
  return (issuerFlags(ctx, info) & AUTH_REQUIRED) === 0;
}

function receiveBalance(ctx: SacCtx, info: AssetInfo, addr: string, amount: bigint): void {
  if (!isAuthorized(ctx, info, addr)) {
    throw ctx.err("Contract", E_DEAUTHORIZED, "balance is deauthorized");
  }
  if (isG(addr)) {
    if (amount > I64_MAX) {
      throw ctx.err("Contract", E_OVERFLOW, "received amount is too large for an i64");
    }
    transferClassic(ctx, info, addr, amount);
    return;
  }
  const b = readContractBalance(ctx, addr) ??
    {
      amount: 0n,
      authorized: true,
      clawback: (issuerFlags(ctx, info) & AUTH_CLAWBACK_ENABLED) !== 0,
    };
  const next = b.amount + amount;
  if (next >= 1n << 127n) {
    throw ctx.err("Contract", E_OVERFLOW, "balance overflow in receive_balance");
  }
  writeContractBalance(ctx, addr, { ...b, amount: next });
}

function spendNoAuthCheck(ctx: SacCtx, info: AssetInfo, addr: string, amount: bigint): void {
  if (isG(addr)) {
    if (amount > I64_MAX) {
      throw ctx.err("Contract", E_OVERFLOW, "spent amount is too large for an i64");
    }
    transferClassic(ctx, info, addr, -amount);
    return;
  }
  const b = readContractBalance(ctx, addr);
  if (b) {
    if (b.amount < amount) {
      throw ctx.err("Contract", E_BALANCE, "balance is not sufficient to spend", [
        structVal([
          ["amount", i128Val(b.amount)],
          ["authorized", xdr.ScVal.scvBool(b.authorized)],
          ["clawback", xdr.ScVal.scvBool(b.clawback)],
        ]),
        i128Val(amount),
      ]);
    }
    writeContractBalance(ctx, addr, { ...b, amount: b.amount - amount });
  } else if (amount > 0n) {
    throw ctx.err("Contract", E_BALANCE, "zero balance is not sufficient to spend", [
      i128Val(amount),
    ]);
  }
}

function spendBalance(ctx: SacCtx, info: AssetInfo, addr: string, amount: bigint): void {
  if (!isAuthorized(ctx, info, addr)) {
    throw ctx.err("Contract", E_DEAUTHORIZED, "balance is deauthorized");
  }
  spendNoAuthCheck(ctx, info, addr, amount);
}

// ---------------------------------------------------------------------------------------------
// Allowances
// ---------------------------------------------------------------------------------------------

function allowanceKey(from: string, spender: string): xdr.ScVal {
  return xdr.ScVal.scvVec([
    sym("Allowance"),
    structVal([["from", addressScVal(from)], ["spender", addressScVal(spender)]]),
  ]);
}

function readAllowanceValue(ctx: SacCtx, from: string, spender: string) {
  const v = ctx.dataGet(allowanceKey(from, spender), 0);
  if (!v) return undefined;
  return {
    amount: i128Of(mapGet(v, "amount")!),
    liveUntil: (mapGet(v, "live_until_ledger") as Any).u32 as number,
  };
}

function readAllowance(ctx: SacCtx, from: string, spender: string): bigint {
  const a = readAllowanceValue(ctx, from, spender);
  if (!a || a.liveUntil < ctx.ledgerSeq) return 0n;
  return a.amount;
}

function writeAllowance(
  ctx: SacCtx,
  from: string,
  spender: string,
  amount: bigint,
  liveUntil: number,
): void {
  if (liveUntil > ctx.maxLiveUntil) {
    throw ctx.err("Contract", E_ALLOWANCE, "live_until is greater than max", [
      xdr.ScVal.scvU32(liveUntil),
      xdr.ScVal.scvU32(ctx.maxLiveUntil),
    ]);
  }
  if (amount > 0n && liveUntil < ctx.ledgerSeq) {
    throw ctx.err("Contract", E_ALLOWANCE, "live_until must be >= ledger sequence", [
      xdr.ScVal.scvU32(liveUntil),
      xdr.ScVal.scvU32(ctx.ledgerSeq),
    ]);
  }
  const existing = readAllowanceValue(ctx, from, spender);
  if (!existing && amount <= 0n) return;
  const key = allowanceKey(from, spender);
  ctx.dataPut(
    key,
    structVal([["amount", i128Val(amount)], ["live_until_ledger", xdr.ScVal.scvU32(liveUntil)]]),
    0,
  );
  if (amount > 0n && (existing?.liveUntil ?? 0) < liveUntil) ctx.dataExtend(key, 0, liveUntil);
}

function spendAllowance(ctx: SacCtx, from: string, spender: string, amount: bigint): void {
  const allowance = readAllowance(ctx, from, spender);
  if (allowance < amount) {
    throw ctx.err("Contract", E_ALLOWANCE, "not enough allowance to spend", [
      i128Val(allowance),
      i128Val(amount),
    ]);
  }
  if (amount > 0n) {
    const existing = readAllowanceValue(ctx, from, spender)!;
    writeAllowance(ctx, from, spender, allowance - amount, existing.liveUntil);
  }
}

// ---------------------------------------------------------------------------------------------
// Events
// ---------------------------------------------------------------------------------------------

function amountData(amount: bigint, muxId?: bigint): xdr.ScVal {
  if (muxId === undefined) return i128Val(amount);
  return structVal([["amount", i128Val(amount)], ["to_muxed_id", xdr.ScVal.scvU64(muxId as Any)]]);
}

function transferEvent(
  ctx: SacCtx,
  info: AssetInfo,
  from: string,
  to: string,
  amount: bigint,
  muxId?: bigint,
) {
  if (from !== to && !info.native && from === info.issuer) {
    ctx.emit([sym("mint"), addressScVal(to), info.name], amountData(amount, muxId));
  } else if (from !== to && !info.native && to === info.issuer) {
    ctx.emit([sym("burn"), addressScVal(from), info.name], i128Val(amount));
  } else {
    ctx.emit(
      [sym("transfer"), addressScVal(from), addressScVal(to), info.name],
      amountData(amount, muxId),
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Functions
// ---------------------------------------------------------------------------------------------

function checkNonNegative(ctx: SacCtx, amount: bigint): void {
  if (amount < 0n) {
    throw ctx.err("Contract", E_NEGATIVE, "negative amount is not allowed", [i128Val(amount)]);
  }
}

function checkNonNative(ctx: SacCtx, info: AssetInfo): void {
  if (info.native) throw ctx.err("Contract", E_NOT_SUPPORTED, "operation invalid on native asset");
}

function checkNotIssuer(ctx: SacCtx, info: AssetInfo, addr: string): void {
  if (!info.native && addr === info.issuer) {
    throw ctx.err("Contract", E_NOT_SUPPORTED, "operation invalid on issuer");
  }
}

function readAdmin(ctx: SacCtx): string {
  const v = ctx.instanceGet(KEY_ADMIN);
  if (!v) {
    throw ctx.err(
      "Storage",
      "MissingValue",
      "trying to get non-existing value for contract storage key",
      [
        KEY_ADMIN,
      ],
    );
  }
  return addressFromScAddress((v as Any).address);
}

function checkClawbackable(ctx: SacCtx, info: AssetInfo, addr: string): void {
  if (isG(addr)) {
    if (info.native) throw ctx.err("Contract", E_NOT_SUPPORTED, "cannot clawback native asset");
    if (addr === info.issuer) {
      throw ctx.err("Contract", E_NOT_SUPPORTED, "cannot clawback from issuer");
    }
    const [, e] = trustlineOf(ctx, info, addr);
    if (((e.data as Any).trustLine.flags & TL_CLAWBACK_ENABLED) === 0) {
      throw ctx.err("Contract", E_BALANCE, "trustline isn't clawbackable");
    }
    return;
  }
  const b = readContractBalance(ctx, addr);
  if (!b) throw ctx.err("Contract", E_BALANCE, "no balance to clawback");
  if (!b.clawback) throw ctx.err("Contract", E_BALANCE, "balance isn't clawbackable");
}

function writeAuthorization(ctx: SacCtx, info: AssetInfo, addr: string, authorize: boolean): void {
  if (!authorize && (issuerFlags(ctx, info) & AUTH_REVOCABLE) === 0) {
    throw ctx.err("Contract", E_NOT_SUPPORTED, "issuer does not have AUTH_REVOCABLE set");
  }
  if (isG(addr)) {
    if (info.native) throw ctx.err("Contract", E_NOT_SUPPORTED, "expected trustline asset");
    if (addr === info.issuer) {
      throw ctx.err("Contract", E_NOT_SUPPORTED, "issuer doesn't have a trustline");
    }
    const [key, e] = trustlineOf(ctx, info, addr);
    const flags: number = (e.data as Any).trustLine.flags;
    if (((flags & TL_AUTHORIZED) !== 0) === authorize) return;
    const next = authorize
      ? (flags & ~TL_MAINTAIN_LIABILITIES) | TL_AUTHORIZED
      : (flags & ~TL_AUTHORIZED) | TL_MAINTAIN_LIABILITIES;
    ctx.entryPut(key, withTrustline(e, { flags: next }, ctx.ledgerSeq));
    return;
  }
  const b = readContractBalance(ctx, addr) ??
    {
      amount: 0n,
      authorized: authorize,
      clawback: (issuerFlags(ctx, info) & AUTH_CLAWBACK_ENABLED) !== 0,
    };
  writeContractBalance(ctx, addr, { ...b, authorized: authorize });
}

function arity(ctx: SacCtx, args: xdr.ScVal[], n: number): void {
  if (args.length !== n) {
    throw ctx.err("WasmVm", "UnexpectedSize", "invalid number of input arguments", [
      xdr.ScVal.scvU32(n),
      xdr.ScVal.scvU32(args.length),
    ]);
  }
}

const VOID = xdr.ScVal.scvVoid();

/** Runs one SAC function on ScVal arguments; returns the ScVal result. */
export function sacInvoke(ctx: SacCtx, fn: string, args: xdr.ScVal[]): xdr.ScVal {
  switch (fn) {
    case "allowance": {
      arity(ctx, args, 2);
      return i128Val(readAllowance(ctx, argAddress(ctx, args[0]), argAddress(ctx, args[1])));
    }
    case "approve": {
      arity(ctx, args, 4);
      const from = argAddress(ctx, args[0]);
      const spender = argAddress(ctx, args[1]);
      const amount = argI128(ctx, args[2]);
      const liveUntil = argU32(ctx, args[3]);
      checkNonNegative(ctx, amount);
      ctx.requireAuth(from);
      const info = readAssetInfo(ctx);
      writeAllowance(ctx, from, spender, amount, liveUntil);
      ctx.emit(
        [sym("approve"), addressScVal(from), addressScVal(spender), info.name],
        xdr.ScVal.scvVec([i128Val(amount), xdr.ScVal.scvU32(liveUntil)]),
      );
      return VOID;
    }
    case "balance": {
      arity(ctx, args, 1);
      const info = readAssetInfo(ctx);
      return i128Val(readBalance(ctx, info, argAddress(ctx, args[0])));
    }
    case "authorized": {
      arity(ctx, args, 1);
      const info = readAssetInfo(ctx);
      return xdr.ScVal.scvBool(isAuthorized(ctx, info, argAddress(ctx, args[0])));
    }
    case "transfer": {
      arity(ctx, args, 3);
      const from = argAddress(ctx, args[0]);
      const to = argMuxed(ctx, args[1]);
      const amount = argI128(ctx, args[2]);
      checkNonNegative(ctx, amount);
      ctx.requireAuth(from);
      const info = readAssetInfo(ctx);
      spendBalance(ctx, info, from, amount);
      receiveBalance(ctx, info, to.address, amount);
      transferEvent(ctx, info, from, to.address, amount, to.id);
      return VOID;
    }
    case "transfer_from": {
      arity(ctx, args, 4);
      const spender = argAddress(ctx, args[0]);
      const from = argAddress(ctx, args[1]);
      const to = argAddress(ctx, args[2]);
      const amount = argI128(ctx, args[3]);
      checkNonNegative(ctx, amount);
      ctx.requireAuth(spender);
      const info = readAssetInfo(ctx);
      spendAllowance(ctx, from, spender, amount);
      spendBalance(ctx, info, from, amount);
      receiveBalance(ctx, info, to, amount);
      transferEvent(ctx, info, from, to, amount);
      return VOID;
    }
    case "burn": {
      arity(ctx, args, 2);
      const from = argAddress(ctx, args[0]);
      const amount = argI128(ctx, args[1]);
      checkNonNegative(ctx, amount);
      const info = readAssetInfo(ctx);
      checkNonNative(ctx, info);
      checkNotIssuer(ctx, info, from);
      ctx.requireAuth(from);
      spendBalance(ctx, info, from, amount);
      ctx.emit([sym("burn"), addressScVal(from), info.name], i128Val(amount));
      return VOID;
    }
    case "burn_from": {
      arity(ctx, args, 3);
      const spender = argAddress(ctx, args[0]);
      const from = argAddress(ctx, args[1]);
      const amount = argI128(ctx, args[2]);
      checkNonNegative(ctx, amount);
      const info = readAssetInfo(ctx);
      checkNonNative(ctx, info);
      checkNotIssuer(ctx, info, from);
      ctx.requireAuth(spender);
      spendAllowance(ctx, from, spender, amount);
      spendBalance(ctx, info, from, amount);
      ctx.emit([sym("burn"), addressScVal(from), info.name], i128Val(amount));
      return VOID;
    }
    case "clawback": {
      arity(ctx, args, 2);
      const from = argAddress(ctx, args[0]);
      const amount = argI128(ctx, args[1]);
      checkNonNegative(ctx, amount);
      const info = readAssetInfo(ctx);
      checkClawbackable(ctx, info, from);
      checkNotIssuer(ctx, info, from);
      ctx.requireAuth(readAdmin(ctx));
      spendNoAuthCheck(ctx, info, from, amount);
      ctx.emit([sym("clawback"), addressScVal(from), info.name], i128Val(amount));
      return VOID;
    }
    case "set_authorized": {
      arity(ctx, args, 2);
      const id = argAddress(ctx, args[0]);
      const authorize = argBool(ctx, args[1]);
      const info = readAssetInfo(ctx);
      ctx.requireAuth(readAdmin(ctx));
      writeAuthorization(ctx, info, id, authorize);
      ctx.emit([sym("set_authorized"), addressScVal(id), info.name], xdr.ScVal.scvBool(authorize));
      return VOID;
    }
    case "mint": {
      arity(ctx, args, 2);
      // The real SAC's mint takes an Address, not a MuxedAddress: a muxed `to` is refused.
      const to = argAddress(ctx, args[0]);
      const amount = argI128(ctx, args[1]);
      checkNonNegative(ctx, amount);
      const info = readAssetInfo(ctx);
      checkNotIssuer(ctx, info, to);
      ctx.requireAuth(readAdmin(ctx));
      receiveBalance(ctx, info, to, amount);
      ctx.emit([sym("mint"), addressScVal(to), info.name], amountData(amount));
      return VOID;
    }
    case "set_admin": {
      arity(ctx, args, 1);
      const next = argAddress(ctx, args[0]);
      const admin = readAdmin(ctx);
      ctx.requireAuth(admin);
      const info = readAssetInfo(ctx);
      ctx.instanceSet(KEY_ADMIN, addressScVal(next));
      ctx.emit([sym("set_admin"), addressScVal(admin), info.name], addressScVal(next));
      return VOID;
    }
    case "admin":
      arity(ctx, args, 0);
      return addressScVal(readAdmin(ctx));
    case "decimals":
      arity(ctx, args, 0);
      return xdr.ScVal.scvU32(7);
    case "name": {
      arity(ctx, args, 0);
      const md = ctx.instanceGet(KEY_METADATA)!;
      return mapGet(md, "name")!;
    }
    case "symbol": {
      arity(ctx, args, 0);
      const md = ctx.instanceGet(KEY_METADATA)!;
      return mapGet(md, "symbol")!;
    }
    default:
      throw ctx.err("WasmVm", "MissingValue", "trying to invoke non-existent contract function", [
        sym(fn),
      ]);
  }
}

// ---------------------------------------------------------------------------------------------
// Instance storage of a new SAC
// ---------------------------------------------------------------------------------------------

/** SEP-11 rendering of an asset code (escaping as in rs-soroban-env `metadata.rs`). */
function sep11Code(code: Uint8Array): string {
  let s = "";
  for (let i = 0; i < code.length; i++) {
    const x = code[i];
    if (x === 0 && code.length === 4) break;
    if (x === 0 && code.length === 12 && i > 4) break;
    if (x === 0x3a || x === 0x5c || x <= 0x20 || x >= 0x7f) {
      s += `\\x${x.toString(16).padStart(2, "0")}`;
    } else s += String.fromCharCode(x);
  }
  return s;
}

/** The instance storage (sorted ScMap entries) of a new SAC for `asset`, as `init_asset` writes it. */
export function sacInstanceStorage(asset: Asset): xdr.ScMapEntry[] {
  const entry = (key: xdr.ScVal, val: xdr.ScVal) => new xdr.ScMapEntry({ key, val });
  if (asset.isNative()) {
    return [
      entry(
        KEY_METADATA,
        structVal([
          ["decimal", xdr.ScVal.scvU32(7)],
          ["name", xdr.ScVal.scvString("native")],
          ["symbol", xdr.ScVal.scvString("native")],
        ]),
      ),
      entry(KEY_ASSET_INFO, xdr.ScVal.scvVec([sym("Native")])),
    ];
  }
  const code = asset.getCode();
  const raw = new Uint8Array(code.length <= 4 ? 4 : 12);
  raw.set(new TextEncoder().encode(code));
  const issuer = asset.getIssuer()!;
  const codeStr = new TextDecoder().decode(raw);
  const name = `${sep11Code(raw)}:${issuer}`;
  return [
    entry(
      KEY_METADATA,
      structVal([
        ["decimal", xdr.ScVal.scvU32(7)],
        ["name", xdr.ScVal.scvString(name)],
        ["symbol", xdr.ScVal.scvString(codeStr)],
      ]),
    ),
    entry(KEY_ADMIN, addressScVal(issuer)),
    entry(
      KEY_ASSET_INFO,
      xdr.ScVal.scvVec([
        sym(raw.length === 4 ? "AlphaNum4" : "AlphaNum12"),
        structVal([
          ["asset_code", xdr.ScVal.scvString(codeStr)],
          ["issuer", xdr.ScVal.scvBytes(accountBytes(issuer) as Any)],
        ]),
      ]),
    ),
  ];
}

/** SAC balance threshold constants (for tests and docs). */
export const SAC_TTL = { BALANCE_EXTEND_AMOUNT, BALANCE_TTL_THRESHOLD };
