/**
 * The real Soroban host (crates.io `soroban-env-host` / `soroban-simulation` 28.0.2) called
 * in-process through Deno FFI: {@link invokeHostFunction} is stellar-core's apply entry point
 * (`e2e_invoke::invoke_host_function`), {@link simulateInvoke} stellar-rpc's preflight.
 * Arguments and results are stellar-sdk `xdr` objects. Not yet wired into the node: the
 * home-made host in `localnet/host/` is still the default (see README.md).
 *
 * @module
 */
import { xdr } from "@stellar/stellar-sdk";
import { callDefaultCostParams, callInvoke, callSimulate } from "./ffi.ts";
import {
  configJson,
  DEFAULT_NETWORK_SETTINGS,
  hex32,
  type LedgerInfo,
  ledgerJson,
  type NetworkSettings,
} from "./config.ts";

export {
  closeRealHost,
  isBuilt,
  libraryPath,
  MISSING_LIBRARY_MESSAGE,
  RealHostError,
} from "./ffi.ts";
export {
  DEFAULT_NETWORK_SETTINGS,
  type LedgerInfo,
  ledgerInfo,
  type NetworkSettings,
  REAL_HOST_PROTOCOL,
} from "./config.ts";

/** A ledger entry as the host sees it: the entry and, for contract data/code, its TTL. */
export interface EntryWithTtl {
  entry: xdr.LedgerEntry;
  /** Live-until ledger (contract data and code only). */
  liveUntil?: number;
}

/** A host error: the `ScError` (e.g. `Contract(1)`) and the host's text. */
export interface HostErrorInfo {
  scError?: xdr.ScError;
  /** `Error(Contract, #1)` style. */
  text: string;
  /** The host's debug rendering (with context when diagnostics are on). */
  debug: string;
}

/** Inputs of {@link invokeHostFunction}: what stellar-core passes for one operation. */
export interface InvokeInput {
  hostFunction: xdr.HostFunction;
  /** The transaction's declared resources (its footprint is enforced). */
  resources: xdr.SorobanResources;
  /** Read-write footprint indices to restore from the archive (tx data ext v1). */
  restoredRwEntryIndices?: number[];
  sourceAccount: xdr.AccountId;
  auth: xdr.SorobanAuthorizationEntry[];
  ledger: LedgerInfo;
  settings?: NetworkSettings;
  /** One item per footprint key, read-only keys first: the entry, or undefined if none. */
  entries: (EntryWithTtl | undefined)[];
  /** 32 bytes: stellar-core derives it from the tx set hash and the operation's index. */
  prngSeed: Uint8Array;
  diagnostics?: boolean;
  /** Instruction limit (default: the declared `resources.instructions`). */
  cpuLimit?: number;
}

/** One footprint entry after the invocation. */
export interface LedgerChange {
  readOnly: boolean;
  key: xdr.LedgerKey;
  /** New entry for read-write keys; null for a deleted (or read-only) entry. */
  entry: xdr.LedgerEntry | null;
  oldSizeForRent: number;
  newSizeForRent: number;
  ttl?: { oldLiveUntil: number; newLiveUntil: number };
}

/** Outputs of {@link invokeHostFunction}. */
export interface InvokeOutput {
  ok: boolean;
  result?: xdr.ScVal;
  error?: HostErrorInfo;
  /** Every footprint key (empty on failure). */
  changes: LedgerChange[];
  events: xdr.ContractEvent[];
  diagnosticEvents: xdr.DiagnosticEvent[];
  cpuInsns: number;
  memBytes: number;
  /** Rent fee (stroops) of the TTL and size changes. */
  rentFee: bigint;
}

const b64 = (x: { toXdr(f: "base64"): string }) => x.toXdr("base64");

function errorOf(v: unknown): HostErrorInfo | undefined {
  if (!v || typeof v !== "object") return undefined;
  const e = v as { sc_error?: string | null; text: string; debug: string };
  return {
    scError: e.sc_error ? xdr.ScError.fromXDR(e.sc_error, "base64") : undefined,
    text: e.text,
    debug: e.debug,
  };
}

/** Applies one host function on the real host, as stellar-core's `InvokeHostFunctionOp` does. */
export function invokeHostFunction(input: InvokeInput): InvokeOutput {
  const r = callInvoke({
    ledger: ledgerJson(input.ledger),
    config: configJson(input.settings ?? DEFAULT_NETWORK_SETTINGS),
    cpu_limit: input.cpuLimit ?? input.resources.instructions,
    host_function: b64(input.hostFunction),
    resources: b64(input.resources),
    restored_rw_entry_indices: input.restoredRwEntryIndices ?? [],
    source_account: b64(input.sourceAccount),
    auth: input.auth.map(b64),
    entries: input.entries.map((e) =>
      e ? { entry: b64(e.entry), live_until: e.liveUntil ?? null } : {}
    ),
    prng_seed: hex32(input.prngSeed),
    diagnostics: input.diagnostics ?? false,
  }) as Record<string, Any>;
  return {
    ok: typeof r.result === "string",
    result: r.result ? xdr.ScVal.fromXDR(r.result, "base64") : undefined,
    error: errorOf(r.error),
    changes: ((r.changes ?? []) as Any[]).map((c) => ({
      readOnly: c.read_only,
      key: xdr.LedgerKey.fromXDR(c.key, "base64"),
      entry: c.entry ? xdr.LedgerEntry.fromXDR(c.entry, "base64") : null,
      oldSizeForRent: c.old_size_for_rent,
      newSizeForRent: c.new_size_for_rent,
      ttl: c.ttl
        ? { oldLiveUntil: c.ttl.old_live_until, newLiveUntil: c.ttl.new_live_until }
        : undefined,
    })),
    events: ((r.events ?? []) as string[]).map((e) => xdr.ContractEvent.fromXDR(e, "base64")),
    diagnosticEvents: ((r.diagnostic_events ?? []) as string[]).map((e) =>
      xdr.DiagnosticEvent.fromXDR(e, "base64")
    ),
    cpuInsns: r.cpu_insns,
    memBytes: r.mem_bytes,
    rentFee: BigInt(r.rent_fee ?? 0),
  };
}

// deno-lint-ignore no-explicit-any
type Any = any;

/** Ledger reads during simulation: the current entry and TTL of a key, or undefined. */
export type Snapshot = (key: xdr.LedgerKey) => EntryWithTtl | undefined;

/** Inputs of {@link simulateInvoke}: what stellar-rpc's preflight takes. */
export interface SimulateInput {
  hostFunction: xdr.HostFunction;
  sourceAccount: xdr.AccountId;
  ledger: LedgerInfo;
  settings?: NetworkSettings;
  snapshot: Snapshot;
  /** Signed entries to enforce; absent = record auth. */
  auth?: xdr.SorobanAuthorizationEntry[];
  /** Record `SOROBAN_CREDENTIALS_ADDRESS_V2` credentials (CAP-71). */
  authV2?: boolean;
  /** Record auth for the root invocation only. */
  disableNonRootAuth?: boolean;
  prngSeed?: Uint8Array;
  diagnostics?: boolean;
  /** stellar-rpc's default resource adjustments (instructions ×1.04 + 50k, …); default on. */
  adjust?: boolean;
}

/** Outputs of {@link simulateInvoke}. */
export interface SimulateOutput {
  ok: boolean;
  result?: xdr.ScVal;
  error?: HostErrorInfo;
  auth: xdr.SorobanAuthorizationEntry[];
  events: xdr.ContractEvent[];
  diagnosticEvents: xdr.DiagnosticEvent[];
  /** Footprint, resources, resource fee, and (ext v1) the entries restored automatically. */
  transactionData?: xdr.SorobanTransactionData;
  cpuInsns: number;
  memBytes: number;
  /** Entries the invocation would change. */
  modified: { before: xdr.LedgerEntry | null; after: xdr.LedgerEntry | null }[];
}

function rawSnapshot(snapshot: Snapshot) {
  return (key: Uint8Array) => {
    const found = snapshot(xdr.LedgerKey.fromXDR(key as Any));
    return found
      ? { entry: found.entry.toXDR() as Uint8Array, liveUntil: found.liveUntil }
      : undefined;
  };
}

function simRequest(input: {
  ledger: LedgerInfo;
  settings?: NetworkSettings;
  adjust?: boolean;
}): Record<string, unknown> {
  return {
    ledger: ledgerJson(input.ledger),
    config: configJson(input.settings ?? DEFAULT_NETWORK_SETTINGS),
    adjust: input.adjust ?? true,
  };
}

/** Preflights a host function on the real host, as stellar-rpc's `simulateTransaction`. */
export function simulateInvoke(input: SimulateInput): SimulateOutput {
  const r = callSimulate({
    ...simRequest(input),
    op: "invoke",
    host_function: b64(input.hostFunction),
    source_account: b64(input.sourceAccount),
    auth: input.auth ? input.auth.map(b64) : null,
    auth_v2: input.authV2 ?? false,
    disable_non_root_auth: input.disableNonRootAuth ?? false,
    prng_seed: hex32(input.prngSeed ?? new Uint8Array(32)),
    diagnostics: input.diagnostics ?? false,
  }, rawSnapshot(input.snapshot)) as Record<string, Any>;
  return {
    ok: typeof r.result === "string",
    result: r.result ? xdr.ScVal.fromXDR(r.result, "base64") : undefined,
    error: errorOf(r.error),
    auth: (r.auth as string[]).map((a) => xdr.SorobanAuthorizationEntry.fromXDR(a, "base64")),
    events: (r.events as string[]).map((e) => xdr.ContractEvent.fromXDR(e, "base64")),
    diagnosticEvents: (r.diagnostic_events as string[]).map((e) =>
      xdr.DiagnosticEvent.fromXDR(e, "base64")
    ),
    transactionData: r.transaction_data
      ? xdr.SorobanTransactionData.fromXDR(r.transaction_data, "base64")
      : undefined,
    cpuInsns: r.cpu_insns,
    memBytes: r.mem_bytes,
    modified: (r.modified as Any[]).map((m) => ({
      before: m.before ? xdr.LedgerEntry.fromXDR(m.before, "base64") : null,
      after: m.after ? xdr.LedgerEntry.fromXDR(m.after, "base64") : null,
    })),
  };
}

/** Preflights `ExtendFootprintTtlOp` (extend `keys` to `sequence + extendTo`). */
export function simulateExtendTtl(input: {
  ledger: LedgerInfo;
  settings?: NetworkSettings;
  snapshot: Snapshot;
  keys: xdr.LedgerKey[];
  extendTo: number;
}): xdr.SorobanTransactionData {
  const r = callSimulate({
    ...simRequest(input),
    op: "extend_ttl",
    keys: input.keys.map(b64),
    extend_to: input.extendTo,
  }, rawSnapshot(input.snapshot));
  return xdr.SorobanTransactionData.fromXDR(r.transaction_data as string, "base64");
}

/** Preflights `RestoreFootprintOp` for archived `keys`. */
export function simulateRestore(input: {
  ledger: LedgerInfo;
  settings?: NetworkSettings;
  snapshot: Snapshot;
  keys: xdr.LedgerKey[];
}): xdr.SorobanTransactionData {
  const r = callSimulate(
    { ...simRequest(input), op: "restore", keys: input.keys.map(b64) },
    rawSnapshot(input.snapshot),
  );
  return xdr.SorobanTransactionData.fromXDR(r.transaction_data as string, "base64");
}

/**
 * The host's built-in cost model as base64 `ContractCostParams` (CPU and memory), the values a
 * node without the network's config entries runs with (`NetworkSettings.cpuCostParams`).
 */
export function defaultCostParams(): { cpu: string; mem: string } {
  return callDefaultCostParams();
}
