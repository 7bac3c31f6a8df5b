/**
 * The real Soroban host (crates.io `soroban-env-host` / `soroban-simulation` 27.0.1) called
 * in-process through Deno FFI: {@link invokeHostFunction} is stellar-core's apply entry point
 * (`e2e_invoke::invoke_host_function`), {@link simulateInvoke} stellar-rpc's preflight.
 * Arguments and results are stellar-sdk `xdr` objects. The node's side (apply, simulation, the
 * in-process API) is `node_host.ts`.
 *
 * @module
 */
import { xdr } from "@stellar/stellar-sdk";
import { callDefaultCostParams, callInvoke, callResourceFee, callSimulate } from "./ffi.ts";
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
  /** The entry, or its XDR in base64 (what the node stores; passed through without re-encoding). */
  entry: xdr.LedgerEntry | string;
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
  /** 32 bytes, one per operation (stellar-core derives it from the transaction set's hash). */
  prngSeed: Uint8Array;
  diagnostics?: boolean;
  /** Instruction limit (default: the declared `resources.instructions`). */
  cpuLimit?: number;
}

/** One footprint entry after the invocation. */
export interface LedgerChange {
  readOnly: boolean;
  /** The key's XDR, base64 (how the node keys its store). */
  keyXdr: string;
  /** The key, decoded on first use. */
  readonly key: xdr.LedgerKey;
  /** New entry's XDR (base64) for read-write keys; null for a deleted (or read-only) entry. */
  entryXdr: string | null;
  /** The new entry, decoded on first use. */
  readonly entry: xdr.LedgerEntry | null;
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
  /** Wall time inside the library: the host call, and the whole request (µs). */
  timing: Timing;
}

/** Where a call's time went, measured inside the library. */
export interface Timing {
  /** The host entry point itself (µs). */
  hostUs: number;
  /** Request decoding + host + response encoding (µs). */
  wrapperUs: number;
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

/** The library's `changes` JSON as {@link LedgerChange}s (keys and entries decoded lazily). */
function changesOf(raw: unknown): LedgerChange[] {
  return ((raw ?? []) as Any[]).map((c): LedgerChange => ({
    readOnly: c.read_only,
    keyXdr: c.key,
    get key() {
      return xdr.LedgerKey.fromXDR(c.key, "base64");
    },
    entryXdr: c.entry ?? null,
    get entry() {
      return c.entry ? xdr.LedgerEntry.fromXDR(c.entry, "base64") : null;
    },
    oldSizeForRent: c.old_size_for_rent,
    newSizeForRent: c.new_size_for_rent,
    ttl: c.ttl
      ? { oldLiveUntil: c.ttl.old_live_until, newLiveUntil: c.ttl.new_live_until }
      : undefined,
  }));
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
      e ? { entry: entryB64(e.entry), live_until: e.liveUntil ?? null } : {}
    ),
    prng_seed: hex32(input.prngSeed),
    diagnostics: input.diagnostics ?? false,
  }) as Record<string, Any>;
  return {
    ...runOutcomeOf(r),
    changes: changesOf(r.changes),
    rentFee: BigInt(r.rent_fee ?? 0),
  };
}

// deno-lint-ignore no-explicit-any
type Any = any;

/**
 * What every host run reports (apply, preflight, recording): result or error, contract and
 * diagnostic events, metering and timing.
 */
function runOutcomeOf(r: Record<string, Any>) {
  return {
    ok: typeof r.result === "string",
    result: r.result ? xdr.ScVal.fromXDR(r.result, "base64") : undefined,
    error: errorOf(r.error),
    events: ((r.events ?? []) as string[]).map((e) => xdr.ContractEvent.fromXDR(e, "base64")),
    diagnosticEvents: ((r.diagnostic_events ?? []) as string[]).map((e) =>
      xdr.DiagnosticEvent.fromXDR(e, "base64")
    ),
    cpuInsns: r.cpu_insns as number,
    memBytes: r.mem_bytes as number,
    timing: { hostUs: r.host_us ?? 0, wrapperUs: r.wrapper_us ?? 0 } as Timing,
  };
}

/** Ledger reads during simulation: the current entry and TTL of a key, or undefined. */
export type Snapshot = (keyBase64: string) => EntryWithTtl | undefined;

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
  /**
   * 32 bytes; default random, as stellar-rpc does: recorded nonces come from it, so a fixed seed
   * would record the same nonce again once the first one is used (`Error(Auth, ExistingValue)`).
   */
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
  /** Wall time inside the library. */
  timing: Timing;
}

function rawSnapshot(snapshot: Snapshot) {
  return (key: Uint8Array) => {
    const found = snapshot(toBase64(key));
    if (!found) return undefined;
    const entry = typeof found.entry === "string"
      ? fromBase64(found.entry)
      : found.entry.toXDR() as Uint8Array;
    return { entry, liveUntil: found.liveUntil };
  };
}

const entryB64 = (e: xdr.LedgerEntry | string) => typeof e === "string" ? e : e.toXdr("base64");

function toBase64(b: Uint8Array): string {
  let s = "";
  for (let i = 0; i < b.length; i += 0x8000) {
    s += String.fromCharCode(...b.subarray(i, i + 0x8000));
  }
  return btoa(s);
}

function fromBase64(s: string): Uint8Array {
  const bin = atob(s);
  const out = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) out[i] = bin.charCodeAt(i);
  return out;
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

/** The request fields of one host-function run (preflight or recording), as the library reads them. */
function invocationFields(input: Omit<SimulateInput, "adjust">): Record<string, unknown> {
  return {
    host_function: b64(input.hostFunction),
    source_account: b64(input.sourceAccount),
    auth: input.auth ? input.auth.map(b64) : null,
    auth_v2: input.authV2 ?? false,
    disable_non_root_auth: input.disableNonRootAuth ?? false,
    prng_seed: hex32(input.prngSeed ?? crypto.getRandomValues(new Uint8Array(32))),
    diagnostics: input.diagnostics ?? false,
  };
}

/** Preflights a host function on the real host, as stellar-rpc's `simulateTransaction`. */
export function simulateInvoke(input: SimulateInput): SimulateOutput {
  const r = callSimulate({
    ...simRequest(input),
    op: "invoke",
    ...invocationFields(input),
  }, rawSnapshot(input.snapshot)) as Record<string, Any>;
  return {
    ...runOutcomeOf(r),
    auth: (r.auth as string[]).map((a) => xdr.SorobanAuthorizationEntry.fromXDR(a, "base64")),
    transactionData: r.transaction_data
      ? xdr.SorobanTransactionData.fromXDR(r.transaction_data, "base64")
      : undefined,
    modified: (r.modified as Any[]).map((m) => ({
      before: m.before ? xdr.LedgerEntry.fromXDR(m.before, "base64") : null,
      after: m.after ? xdr.LedgerEntry.fromXDR(m.after, "base64") : null,
    })),
  };
}

/** Outputs of {@link recordInvoke}. */
export interface RecordOutput {
  ok: boolean;
  result?: xdr.ScVal;
  error?: HostErrorInfo;
  /** Recorded auth (record mode, signatures cleared) or the entries passed in (enforce). */
  auth: xdr.SorobanAuthorizationEntry[];
  /** Every key of the recorded footprint, with its new value and TTL change (empty on failure). */
  changes: LedgerChange[];
  events: xdr.ContractEvent[];
  diagnosticEvents: xdr.DiagnosticEvent[];
  /** The recorded footprint and resources (unadjusted). */
  resources?: xdr.SorobanResources;
  /** Read-write footprint indices of archived entries the call restored automatically. */
  restoredRwEntryIndices: number[];
  cpuInsns: number;
  memBytes: number;
  timing: Timing;
}

/**
 * Runs a host function in recording mode (`e2e_invoke::invoke_host_function_in_recording_mode`,
 * what {@link simulateInvoke} runs underneath) and returns its ledger changes as
 * {@link invokeHostFunction} does — new values and TTL changes — so the call can be applied
 * without a transaction (the node's in-process API). No fees, no resource adjustments.
 */
export function recordInvoke(input: Omit<SimulateInput, "adjust">): RecordOutput {
  const r = callSimulate({
    ...simRequest(input),
    op: "record",
    ...invocationFields(input),
  }, rawSnapshot(input.snapshot)) as Record<string, Any>;
  return {
    ...runOutcomeOf(r),
    auth: ((r.auth ?? []) as string[]).map((a) =>
      xdr.SorobanAuthorizationEntry.fromXDR(a, "base64")
    ),
    changes: changesOf(r.changes),
    resources: r.resources ? xdr.SorobanResources.fromXDR(r.resources, "base64") : undefined,
    restoredRwEntryIndices: r.restored_rw_entry_indices ?? [],
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

/** Declared resources of a Soroban transaction, as the fee schedule counts them. */
export interface TransactionResources {
  instructions: number;
  diskReadEntries: number;
  writeEntries: number;
  diskReadBytes: number;
  writeBytes: number;
  contractEventsSizeBytes: number;
  transactionSizeBytes: number;
}

/**
 * The resource fee of declared resources, computed by the host's fee schedule
 * (`fees::compute_transaction_resource_fee`, what stellar-core charges at validation).
 */
export function resourceFee(
  resources: TransactionResources,
  ledger: LedgerInfo,
  settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
): { nonRefundable: bigint; refundable: bigint } {
  const r = callResourceFee({
    ledger: ledgerJson(ledger),
    config: configJson(settings),
    resources: {
      instructions: resources.instructions,
      disk_read_entries: resources.diskReadEntries,
      write_entries: resources.writeEntries,
      disk_read_bytes: resources.diskReadBytes,
      write_bytes: resources.writeBytes,
      contract_events_size_bytes: resources.contractEventsSizeBytes,
      transaction_size_bytes: resources.transactionSizeBytes,
    },
  });
  return {
    nonRefundable: BigInt(r.non_refundable as number),
    refundable: BigInt(r.refundable as number),
  };
}

const NO_RESOURCES = {
  instructions: 0,
  disk_read_entries: 0,
  write_entries: 0,
  disk_read_bytes: 0,
  write_bytes: 0,
  contract_events_size_bytes: 0,
  transaction_size_bytes: 0,
};

/** One entry's rent-relevant change, sizes as the host counts them for rent. */
export interface RentChange {
  persistent: boolean;
  code: boolean;
  /** 0 for a new (or restored) entry */
  oldSize: number;
  newSize: number;
  /** 0 for a new (or restored) entry */
  oldLiveUntil: number;
  newLiveUntil: number;
}

/**
 * The rent of `changes` applied in the ledger `ledger.sequenceNumber`, computed by the host
 * (`fees::compute_rent_fee`, what stellar-core charges its RestoreFootprint and
 * ExtendFootprintTTL operations): rent for the added ledgers, plus one write per TTL extended.
 */
export function rentFeeOf(
  changes: RentChange[],
  ledger: LedgerInfo,
  settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
): bigint {
  const r = callResourceFee({
    ledger: ledgerJson(ledger),
    config: configJson(settings),
    resources: NO_RESOURCES,
    rent_changes: changes.map((c) => ({
      persistent: c.persistent,
      code: c.code,
      old_size: c.oldSize,
      new_size: c.newSize,
      old_live_until: c.oldLiveUntil,
      new_live_until: c.newLiveUntil,
    })),
  });
  return BigInt(r.rent_fee as number);
}

/**
 * Entry sizes as the host counts them for rent (`e2e_invoke::entry_size_for_rent`): the XDR size,
 * plus, for contract code, the memory of its parsed module (protocol 23+).
 */
export function sizesForRent(
  entries: (xdr.LedgerEntry | string)[],
  ledger: LedgerInfo,
  settings: NetworkSettings = DEFAULT_NETWORK_SETTINGS,
): number[] {
  if (entries.length === 0) return [];
  const r = callResourceFee({
    ledger: ledgerJson(ledger),
    config: configJson(settings),
    resources: NO_RESOURCES,
    sizes_for_rent: entries.map((e) => typeof e === "string" ? e : b64(e)),
  });
  return r.sizes_for_rent as number[];
}
