/**
 * The real Soroban host behind the node's {@link HostApi}. Three paths, as in stellar-core and
 * stellar-rpc:
 *
 * - {@link applyRealInvoke}: an `InvokeHostFunctionOp` of a transaction, through `vh_invoke`
 *   with the declared footprint, auth and instructions (stellar-core's apply);
 * - {@link simulateReal}: `simulateTransaction`, through `vh_simulate` (stellar-rpc's preflight,
 *   automatic restore listed in the tx data's v1 extension, no `restorePreamble`);
 * - `invokeHostFunction` of the {@link HostApi} (the in-process `invoke`/`view`/`deployWasm`):
 *   the host in recording mode ({@link invokeDirect}), its ledger changes and TTLs applied
 *   directly.
 *
 * @module
 */
import { Address, Keypair, xdr } from "@stellar/stellar-sdk";
import type { HostApi } from "../host_api.ts";
import { decodeResult, encodeArgs, specFor } from "../spec/contract_spec.ts";
import type {
  HostErrorInfo as NodeHostError,
  InvokeRequest,
  InvokeResult,
  LedgerInfo as NodeLedgerInfo,
  LedgerReader,
} from "../host_api.ts";
import { eventsFee, FEE_CONFIG, type FeeConfig } from "../fees.ts";
import { P27_SETTINGS } from "../network_settings.ts";
import { MIN_PERSISTENT_TTL, MIN_TEMPORARY_TTL } from "../constants.ts";
import type { OpResultJson } from "../classic.ts";
import { hostErrorString, type HostEvent } from "./error_string.ts";
import {
  closeRealHost,
  type HostErrorInfo,
  invokeHostFunction,
  type LedgerInfo,
  type NetworkSettings,
  REAL_HOST_PROTOCOL,
  recordInvoke,
  rentFeeOf,
  simulateExtendTtl,
  simulateInvoke,
  simulateRestore,
  sizesForRent,
} from "./mod.ts";
import type { Overlay } from "../store.ts";
import { sha256, toHex } from "../util.ts";

/** A {@link HostApi} backed by the real host (marked so the ledger layer takes its paths). */
export interface RealHostApi extends HostApi {
  readonly real: true;
}

/** Whether `host` is the real host's adapter. */
export function isRealHost(host: HostApi | undefined): host is RealHostApi {
  return (host as { real?: boolean } | undefined)?.real === true;
}

/** The real host's network settings from the node's fee configuration (protocol 27's limits). */
export function settingsOf(fees: FeeConfig = FEE_CONFIG): NetworkSettings {
  return {
    txMaxInstructions: P27_SETTINGS.txMaxInstructions.value,
    txMemoryLimit: P27_SETTINGS.txMemoryLimit.value,
    fee: {
      perInstructionIncrement: fees.perInstructionIncrement,
      perDiskReadEntry: fees.perDiskReadEntry,
      perWriteEntry: fees.perWriteEntry,
      perDiskRead1kb: fees.perDiskRead1kb,
      perWrite1kb: fees.perWrite1kb,
      perHistorical1kb: fees.perHistorical1kb,
      perContractEvent1kb: fees.perEvent1kb,
      perTransactionSize1kb: fees.perTxSize1kb,
    },
    rent: {
      perRent1kb: fees.rentPer1kb,
      persistentRentRateDenominator: fees.persistentRentDenominator,
      temporaryRentRateDenominator: fees.temporaryRentDenominator,
    },
  };
}

/** The node's ledger facts as the real host's `LedgerInfo`. */
export function realLedger(l: NodeLedgerInfo): LedgerInfo {
  return {
    protocolVersion: REAL_HOST_PROTOCOL,
    sequenceNumber: l.sequence,
    timestamp: l.timestamp,
    networkId: l.networkId,
    baseReserve: l.baseReserve ?? 5_000_000,
    minTempEntryTtl: l.minTempTtl ?? MIN_TEMPORARY_TTL,
    minPersistentEntryTtl: l.minPersistentTtl ?? MIN_PERSISTENT_TTL,
    maxEntryTtl: l.maxEntryTtl,
  };
}

/** The fee configuration kept on the node's EntryStore (or the default). */
function feesOf(src: unknown): FeeConfig {
  return (src as { fees?: FeeConfig } | undefined)?.fees ?? FEE_CONFIG;
}

/** A snapshot callback over a reader: live entries, and archived ones with their old TTL. */
function snapshotOf(reader: LedgerReader) {
  return (k: string) => {
    const e = reader.get(k);
    return e ? { entry: e, liveUntil: reader.liveUntil?.(k) } : undefined;
  };
}

const ERROR_TYPES: Record<string, string> = {
  contract: "Contract",
  wasmVm: "WasmVm",
  wasm_vm: "WasmVm",
  context: "Context",
  storage: "Storage",
  object: "Object",
  crypto: "Crypto",
  events: "Events",
  budget: "Budget",
  value: "Value",
  auth: "Auth",
};

const camel = (s: string) =>
  s.split("_").map((w) => w ? w[0].toUpperCase() + w.slice(1) : w).join("");

/** A real-host error as the node's `{type, code}` (e.g. Contract/1, Budget/ExceededLimit). */
export function nodeError(e: HostErrorInfo | undefined): NodeHostError {
  const json = e?.scError?.toJson() as Record<string, unknown> | undefined;
  if (!json) return { type: "Context", code: "InternalError", message: e?.debug ?? "" };
  const [k, v] = Object.entries(json)[0];
  return {
    type: ERROR_TYPES[k] ?? camel(k),
    code: typeof v === "number" ? v : camel(String(v)),
    message: e?.debug ?? e?.text ?? "",
  };
}

/** A diagnostic event as the home-made host's event-log formatter takes it. */
function hostEventOf(d: xdr.DiagnosticEvent): HostEvent {
  const ev = d.event;
  const id = ev.contractId as unknown;
  const raw = id === null || id === undefined
    ? null
    : id instanceof Uint8Array
    ? id
    : (id as { value?: Uint8Array }).value ?? null;
  const body = ev.body.v0;
  return {
    contractId: raw,
    diagnostic: ev.type.name === "diagnostic",
    topics: body.topics,
    data: body.data,
    failed: !d.inSuccessfulContractCall,
  };
}

/**
 * stellar-rpc's simulation error string: `HostError: Error(Contract, #1)`, then the event log
 * newest first (from the diagnostic events), as the host prints it.
 */
function errorString(e: HostErrorInfo | undefined, diags: xdr.DiagnosticEvent[] = []): string {
  const n = nodeError(e);
  let events: HostEvent[] = [];
  try {
    events = diags.map(hostEventOf);
  } catch {
    // An event the formatter cannot read: the error line alone.
  }
  return hostErrorString(n.type, n.code, events);
}

/** The LedgerKey of an entry a contract can change. */
export function keyOfEntry(e: xdr.LedgerEntry): xdr.LedgerKey {
  const d = e.data;
  switch (d.type) {
    case "account":
      return xdr.LedgerKey.account(new xdr.LedgerKeyAccount({ accountId: d.account.accountId }));
    case "trustline":
      return xdr.LedgerKey.trustline(
        new xdr.LedgerKeyTrustLine({ accountId: d.trustLine.accountId, asset: d.trustLine.asset }),
      );
    case "contractData":
      return xdr.LedgerKey.contractData(
        new xdr.LedgerKeyContractData({
          contract: d.contractData.contract,
          key: d.contractData.key,
          durability: d.contractData.durability,
        }),
      );
    case "contractCode":
      return xdr.LedgerKey.contractCode(
        new xdr.LedgerKeyContractCode({ hash: d.contractCode.hash }),
      );
    default:
      throw new Error(`entry type ${d.type} cannot change in a contract call`);
  }
}

/**
 * The in-process API's call (`Localnet.invoke`, `deployWasm`, `deployAsset`): the host in
 * recording mode with mocked auth, as the node's {@link InvokeResult}, applied by the ledger
 * layer without a transaction (no fees). The changes come from the host's own ledger changes,
 * TTLs included: `liveUntil` carries every new live-until ledger the host set — a new entry's
 * TTL, a contract's `extend_ttl`, an automatic restore — which the ledger layer applies as
 * max(current, requested).
 */
export function invokeDirect(req: InvokeRequest): InvokeResult {
  const rec = recordInvoke({
    hostFunction: req.hostFunction,
    sourceAccount: Keypair.fromPublicKey(req.source).xdrAccountId(),
    ledger: realLedger(req.ledger),
    settings: settingsOf(feesOf(req.reader)),
    snapshot: snapshotOf(req.reader),
    auth: req.mode === "enforce" ? req.auth : undefined,
    disableNonRootAuth: req.mode === "record",
    diagnostics: true,
  });
  const fp = rec.resources?.footprint;
  const resources = {
    instructions: rec.cpuInsns,
    diskReadBytes: rec.resources?.diskReadBytes ?? 0,
    writeBytes: rec.resources?.writeBytes ?? 0,
  };
  if (!rec.ok) {
    return {
      ok: false,
      error: nodeError(rec.error),
      errorString: errorString(rec.error, rec.diagnosticEvents),
      events: [],
      diagnosticEvents: rec.diagnosticEvents,
      changes: new Map(),
      readOnly: [],
      readWrite: [],
      auth: [],
      resources,
    };
  }
  const readWrite = fp?.readWrite.map((k) => k.toXdr("base64")) ?? [];
  // An archived entry the call restored automatically is written even when unchanged: the
  // write is what brings it back in the store (then its TTL below applies).
  const restored = new Set(rec.restoredRwEntryIndices.map((i) => readWrite[i]));
  const changes = new Map<string, xdr.LedgerEntry | null>();
  const liveUntil = new Map<string, number>();
  for (const c of rec.changes) {
    if (!c.readOnly) {
      const before = req.reader.get(c.keyXdr);
      if (c.entryXdr === null) {
        if (before) changes.set(c.keyXdr, null);
      } else if (!before || restored.has(c.keyXdr) || before.toXdr("base64") !== c.entryXdr) {
        changes.set(c.keyXdr, c.entry!);
      }
    }
    const deleted = !c.readOnly && c.entryXdr === null;
    if (c.ttl && !deleted && c.ttl.newLiveUntil > c.ttl.oldLiveUntil) {
      liveUntil.set(c.keyXdr, c.ttl.newLiveUntil);
    }
  }
  return {
    ok: true,
    returnValue: rec.result,
    events: rec.events,
    diagnosticEvents: rec.diagnosticEvents,
    changes,
    readOnly: fp?.readOnly.map((k) => k.toXdr("base64")) ?? [],
    readWrite,
    auth: rec.auth,
    resources,
    liveUntil,
  };
}

let users = 0;

/** A node starts using the real host (see {@link releaseRealHost}). */
export function acquireRealHost(): void {
  users++;
}

/**
 * A node stops using the real host: the last one closes the library and its callback, so a
 * test that closes its node leaves no FFI resource open (the library reopens on the next call).
 */
export function releaseRealHost(): void {
  if (users > 0 && --users === 0) closeRealHost();
}

/** The real host as the node's {@link HostApi}. */
export const realHostApi: RealHostApi = {
  real: true,
  invokeHostFunction: invokeDirect,
  deployStellarAsset({ reader, ledger, asset }) {
    const res = invokeDirect({
      reader,
      ledger,
      source: Keypair.master(ledger.networkPassphrase).publicKey(),
      hostFunction: xdr.HostFunction.hostFunctionTypeCreateContractV2(
        new xdr.CreateContractArgsV2({
          contractIdPreimage: xdr.ContractIdPreimage.contractIdPreimageFromAsset(
            asset.toXDRObject() as never,
          ),
          executable: xdr.ContractExecutable.contractExecutableStellarAsset(),
          constructorArgs: [],
        }),
      ),
      auth: [],
      mode: "record_allow_nonroot",
    });
    if (!res.ok) throw new Error(`SAC deploy failed: ${res.errorString}`);
    return { contractId: Address.fromScVal(res.returnValue!).toString(), changes: res.changes };
  },
  // Specs come from the Wasm's contractspecv0 (or the SAC's interface): no host involved.
  specFor,
  encodeArgs,
  decodeResult,
};

/** What {@link applyRealInvoke} returns (the ledger layer's SorobanOpOutcome). */
export interface RealApplyOutcome {
  ok: boolean;
  result: OpResultJson;
  events: xdr.ContractEvent[];
  diagnosticEvents: xdr.DiagnosticEvent[];
  returnValue?: xdr.ScVal;
  ttlExtensions?: Map<string, number>;
  restored?: Map<string, number>;
  refundableFee?: bigint;
  rentFee?: bigint;
}

/** The archived entries a transaction restores (tx data ext v1), as read-write indices. */
export function restoredIndices(data: xdr.SorobanTransactionData): number[] {
  const ext = data.ext.toJson() as { v1?: { archived_soroban_entries: number[] } };
  return ext.v1?.archived_soroban_entries ?? [];
}

/**
 * Applies an `InvokeHostFunctionOp` on the real host into `view`, as stellar-core does: the
 * footprint's entries go in (archived ones only when the transaction lists them for restore),
 * the host enforces footprint, auth and the declared instructions; rent comes from the host, the
 * events fee from the node's schedule, both paid from the refundable budget.
 */
export function applyRealInvoke(
  ctx: { ledgerSeq: number; hostLedger: NodeLedgerInfo; store?: unknown },
  view: Overlay,
  op: xdr.InvokeHostFunctionOp,
  source: string,
  soroban: { data: xdr.SorobanTransactionData; readOnly: string[]; readWrite: string[] },
  budget: bigint,
  prngSeed: Uint8Array,
  fail: (code: string, diags: xdr.DiagnosticEvent[], msg?: string) => RealApplyOutcome,
): RealApplyOutcome {
  const store = ctx.store as { archived?(k: string): boolean } | undefined;
  const archived = (k: string) => store?.archived?.(k) ?? false;
  const restore = new Set(restoredIndices(soroban.data));
  // Archived entries not listed for restore: core refuses before running the host.
  const unlisted = [
    ...soroban.readOnly.filter(archived),
    ...soroban.readWrite.filter((k, i) => archived(k) && !restore.has(i)),
  ];
  if (unlisted.length > 0) {
    return fail(
      "entry_archived",
      [],
      `trying to access an archived contract entry (${unlisted.length} in the footprint); restore it first`,
    );
  }
  const keys = [...soroban.readOnly, ...soroban.readWrite];
  const out = invokeHostFunction({
    hostFunction: op.hostFunction,
    resources: soroban.data.resources,
    restoredRwEntryIndices: [...restore],
    sourceAccount: Keypair.fromPublicKey(source).xdrAccountId(),
    auth: op.auth,
    ledger: realLedger(ctx.hostLedger),
    settings: settingsOf(feesOf(ctx.store)),
    entries: keys.map((k) => {
      const e = view.get(k);
      return e ? { entry: e, liveUntil: view.liveUntil(k) } : undefined;
    }),
    prngSeed,
    diagnostics: true,
  });
  if (!out.ok) {
    const err = nodeError(out.error);
    const code = err.type === "Budget" && err.code === "ExceededLimit"
      ? "resource_limit_exceeded"
      : "trapped";
    return fail(code, out.diagnosticEvents);
  }
  const returnValue = out.result ?? xdr.ScVal.scvVoid();
  let eventBytes = returnValue.toXdr().length;
  for (const e of out.events) eventBytes += e.toXdr().length;
  const refundable = out.rentFee + eventsFee(eventBytes, feesOf(ctx.store));
  if (refundable > budget) {
    return fail(
      "insufficient_refundable_fee",
      out.diagnosticEvents,
      `refundable resource fee ${refundable} exceeds the transaction's refundable budget ${budget}`,
    );
  }
  const ttlExtensions = new Map<string, number>();
  const restored = new Map<string, number>();
  const rwIndex = new Map(soroban.readWrite.map((k, i) => [k, i]));
  for (const c of out.changes) {
    if (!c.readOnly) {
      const before = view.get(c.keyXdr);
      if (c.entryXdr === null) {
        if (before) view.delete(c.keyXdr);
      } else if (!before || before.toXdr("base64") !== c.entryXdr) {
        view.set(c.keyXdr, c.entry!);
      }
    }
    if (c.ttl) {
      const i = rwIndex.get(c.keyXdr);
      if (i !== undefined && restore.has(i)) restored.set(c.keyXdr, c.ttl.newLiveUntil);
      else ttlExtensions.set(c.keyXdr, c.ttl.newLiveUntil);
    }
  }
  const successHash = sha256(
    new xdr.InvokeHostFunctionSuccessPreImage({ returnValue, events: out.events }).toXdr(),
  );
  return {
    ok: true,
    result: { op_inner: { invoke_host_function: { success: toHex(successHash) } } },
    events: out.events,
    diagnosticEvents: out.diagnosticEvents,
    returnValue,
    ttlExtensions,
    restored,
    refundableFee: refundable,
    rentFee: out.rentFee,
  };
}

/** soroban-simulation's default instruction adjustment: ×1.04, and at least +50,000. */
export const INSTRUCTIONS_ADJUSTMENT = { multiplicative: 1.04, additive: 50_000 } as const;

/**
 * The instructions stellar-rpc declares for `simulated` metered instructions (soroban-simulation
 * `SimulationAdjustmentFactor::adjust_u32` with stellar-rpc's preflight config):
 * `max(simulated + max(50,000, leeway), floor(simulated × 1.04))`, and 0 stays 0.
 */
export function adjustedInstructions(simulated: number, leeway = 0): number {
  if (simulated === 0) return 0;
  const additive = Math.max(INSTRUCTIONS_ADJUSTMENT.additive, leeway);
  const scaled = Math.floor(simulated * INSTRUCTIONS_ADJUSTMENT.multiplicative);
  return Math.min(0xffff_ffff, Math.max(simulated + additive, scaled));
}

/** The instruction term of the resource fee: `ceil(instructions × rate / 10,000)`. */
export function instructionFee(instructions: number, ratePerIncrement: bigint): bigint {
  return (BigInt(instructions) * ratePerIncrement + 9_999n) / 10_000n;
}

/** simulateTransaction's result (stellar-rpc shape). */
export interface RealSimulation {
  error?: string;
  events?: string[];
  transactionData?: string;
  minResourceFee?: string;
  results?: { xdr: string; auth: string[] }[];
}

/**
 * stellar-rpc's preflight on the real simulation: `InvokeHostFunction` (record or enforce auth,
 * automatic restore in the tx data's v1 extension) or the restore/extend preflights.
 */
export function simulateReal(
  reader: LedgerReader,
  ledger: NodeLedgerInfo,
  source: string,
  body: xdr.OperationBody,
  authMode: string,
  footprint: xdr.LedgerFootprint | undefined,
  instructionLeeway = 0,
  /** Record v2 address credentials (stellar-rpc's `useUpgradedAuth`). */
  authV2 = false,
): RealSimulation {
  const l = realLedger(ledger);
  const settings = settingsOf(feesOf(reader));
  const snapshot = snapshotOf(reader);
  if (body.type === "extendFootprintTtl" || body.type === "restoreFootprint") {
    const data = body.type === "extendFootprintTtl"
      ? simulateExtendTtl({
        ledger: l,
        settings,
        snapshot,
        keys: footprint!.readOnly,
        extendTo: body.extendFootprintTtlOp.extendTo,
      })
      : simulateRestore({ ledger: l, settings, snapshot, keys: footprint!.readWrite });
    return {
      transactionData: data.toXdr("base64"),
      minResourceFee: data.resourceFee.toString(),
      events: [],
    };
  }
  const inv = (body as xdr.OperationBody & { type: "invokeHostFunction" }).invokeHostFunctionOp;
  const sim = simulateInvoke({
    hostFunction: inv.hostFunction,
    sourceAccount: Keypair.fromPublicKey(source).xdrAccountId(),
    ledger: l,
    settings,
    snapshot,
    auth: authMode === "enforce" ? inv.auth : undefined,
    authV2,
    disableNonRootAuth: authMode === "record",
    diagnostics: true,
  });
  const events = sim.diagnosticEvents.map((e) => e.toXdr("base64"));
  if (!sim.ok || !sim.transactionData) {
    return { error: errorString(sim.error, sim.diagnosticEvents), events };
  }
  let data = sim.transactionData;
  const r = data.resources;
  // Up to the default additive 50,000 the library's own adjustment stands as it is.
  if (instructionLeeway > INSTRUCTIONS_ADJUSTMENT.additive) {
    const instructions = adjustedInstructions(sim.cpuInsns, instructionLeeway);
    // stellar-rpc's resourceConfig.instructionLeeway replaces the default adjustment's additive
    // 50,000 when larger (it is not added on top); the instruction fee is its own ceil-rounded
    // term of the resource fee, so the fee moves by exactly the difference of that term.
    const fee = (n: number) => instructionFee(n, settings.fee.perInstructionIncrement);
    data = new xdr.SorobanTransactionData({
      ext: data.ext,
      resources: new xdr.SorobanResources({
        footprint: r.footprint,
        instructions,
        diskReadBytes: r.diskReadBytes,
        writeBytes: r.writeBytes,
      }),
      resourceFee: data.resourceFee + fee(instructions) - fee(r.instructions),
    });
  }
  return {
    transactionData: data.toXdr("base64"),
    minResourceFee: data.resourceFee.toString(),
    results: [{
      xdr: (sim.result ?? xdr.ScVal.scvVoid()).toXdr("base64"),
      auth: sim.auth.map((a) => a.toXdr("base64")),
    }],
    events,
  };
}

/** An entry a RestoreFootprint or ExtendFootprintTTL operation gives a new live-until ledger. */
export interface TtlChange {
  entry: xdr.LedgerEntry;
  /** The live-until ledger before (ignored for a restore: the entry counts as new). */
  oldLiveUntil: number;
  newLiveUntil: number;
  /** Restored from the archive (rent as for a new entry) rather than extended. */
  restored: boolean;
}

/**
 * The rent stellar-core charges its own RestoreFootprint and ExtendFootprintTTL operations (no
 * contract runs, but core asks the host): sizes for rent from `entry_size_for_rent` (a code
 * entry counts its parsed module's memory) and the fee from `compute_rent_fee`.
 */
export function coreOpRent(
  ctx: { hostLedger: NodeLedgerInfo; store?: unknown },
  changes: TtlChange[],
): bigint {
  if (changes.length === 0) return 0n;
  const ledger = realLedger(ctx.hostLedger);
  const settings = settingsOf(feesOf(ctx.store));
  const sizes = sizesForRent(changes.map((c) => c.entry), ledger, settings);
  return rentFeeOf(
    changes.map((c, i) => {
      const d = c.entry.data;
      const code = d.type === "contractCode";
      return {
        persistent: code ||
          (d.type === "contractData" && d.contractData.durability.name !== "temporary"),
        code,
        oldSize: c.restored ? 0 : sizes[i],
        newSize: sizes[i],
        oldLiveUntil: c.restored ? 0 : c.oldLiveUntil,
        newLiveUntil: c.newLiveUntil,
      };
    }),
    ledger,
    settings,
  );
}
