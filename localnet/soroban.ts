/**
 * Soroban operations: applying InvokeHostFunction (through the host, with the declared
 * footprint enforced), ExtendFootprintTtl/RestoreFootprint (successes; entries never
 * archive here), and simulation with stellar-rpc's pre-checks and messages.
 *
 * @module
 */
import { xdr } from "@stellar/stellar-sdk";
import type { OpResultJson } from "./classic.ts";
import { MAX_ENTRY_TTL, MIN_PERSISTENT_TTL, MIN_TEMPORARY_TTL } from "./constants.ts";
import {
  eventsFee,
  FEE_CONFIG,
  type FeeConfig,
  nonRefundableFee,
  paddedInstructions,
  type RentChange,
  rentFee,
} from "./fees.ts";
import type { HostApi } from "./host_api.ts";
import type { AuthMode, LedgerInfo, LedgerReader } from "./host/types.ts";
import type { Overlay } from "./store.ts";
import { fromB64, muxedToG, sha256, toB64, toHex } from "./util.ts";
import { applyRealInvoke, isRealHost, simulateReal } from "./real_host/node_host.ts";

/** What applying one Soroban op produced. */
export interface SorobanOpOutcome {
  ok: boolean;
  result: OpResultJson;
  events: xdr.ContractEvent[];
  diagnosticEvents: xdr.DiagnosticEvent[];
  returnValue?: xdr.ScVal;
  /** TTL extensions to apply on success (ExtendFootprintTtl): key → live-until ledger. */
  ttlExtensions?: Map<string, number>;
  /** Refundable fee consumed (events, return value, rent), on success. */
  refundableFee?: bigint;
  /** Entries restored by RestoreFootprint: key → new live-until ledger. */
  restored?: Map<string, number>;
  /** Its rent part. */
  rentFee?: bigint;
}

/** What an EntryStore offers beyond reads: TTLs, archival state, minimum TTLs. */
type TtlSource = {
  stored?(key: string): { liveUntil?: number } | undefined;
  archived?(key: string): boolean;
  ttl?: { minPersistent: number; minTemporary: number };
};

function ttlReader(src: unknown): (key: string) => number | undefined {
  const s = src as TtlSource | undefined;
  return (key) => s?.stored?.(key)?.liveUntil;
}

function archivedReader(src: unknown): (key: string) => boolean {
  const s = src as TtlSource | undefined;
  return (key) => s?.archived?.(key) ?? false;
}

/** The node's fee configuration (kept on its EntryStore), or the default. */
function feesOf(src: unknown): FeeConfig {
  return (src as { fees?: FeeConfig } | undefined)?.fees ?? FEE_CONFIG;
}

function minTtls(src: unknown): { minPersistent: number; minTemporary: number } {
  return (src as TtlSource | undefined)?.ttl ??
    { minPersistent: MIN_PERSISTENT_TTL, minTemporary: MIN_TEMPORARY_TTL };
}

/**
 * The rent-relevant changes of a host run: new contract data/code entries (minimum TTL of
 * their durability), grown entries and TTL extensions, against the state before (`reader`).
 */
export function rentChangesOf(
  reader: LedgerReader,
  ttlOf: (key: string) => number | undefined,
  changes: Map<string, xdr.LedgerEntry | null>,
  liveUntil: Map<string, number> | undefined,
  ledgerSeq: number,
  minTtl: { minPersistent: number; minTemporary: number } = {
    minPersistent: MIN_PERSISTENT_TTL,
    minTemporary: MIN_TEMPORARY_TTL,
  },
): RentChange[] {
  const out: RentChange[] = [];
  const keys = new Set([...changes.keys(), ...(liveUntil?.keys() ?? [])]);
  for (const k of keys) {
    const before = reader.get(k);
    const after = changes.has(k) ? changes.get(k) : before;
    if (!after) continue;
    const d = after.data;
    if (d.type !== "contractData" && d.type !== "contractCode") continue;
    const persistent = d.type === "contractCode" || d.contractData.durability.name !== "temporary";
    const oldSize = before ? before.toXdr().length : 0;
    const newSize = changes.has(k) ? after.toXdr().length : oldSize;
    const oldLiveUntil = before ? ttlOf(k) ?? 0 : 0;
    let newLiveUntil = before
      ? oldLiveUntil
      : ledgerSeq + (persistent ? minTtl.minPersistent : minTtl.minTemporary) - 1;
    const ext = liveUntil?.get(k);
    if (ext !== undefined && ext > newLiveUntil) newLiveUntil = ext;
    if (oldSize === newSize && oldLiveUntil === newLiveUntil) continue;
    out.push({
      persistent,
      code: d.type === "contractCode",
      oldSize,
      newSize,
      oldLiveUntil,
      newLiveUntil,
    });
  }
  return out;
}

/** Bytes of contract events plus the return value (what the events fee is charged on). */
function eventBytes(events: xdr.ContractEvent[], returnValue: xdr.ScVal | undefined): number {
  let n = returnValue ? returnValue.toXdr().length : 0;
  for (const e of events) n += e.toXdr().length;
  return n;
}

const insufficientRefundable = (
  op: "invoke_host_function" | "extend_footprint_ttl" | "restore_footprint",
  need: bigint,
  budget: bigint,
  diagnostics: xdr.DiagnosticEvent[] = [],
): SorobanOpOutcome => ({
  ok: false,
  result: { op_inner: { [op]: "insufficient_refundable_fee" } },
  events: [],
  diagnosticEvents: [
    ...diagnostics,
    diagnosticError(
      "Budget",
      "ExceededLimit",
      `refundable resource fee ${need} exceeds the transaction's refundable budget ${budget}`,
    ),
  ],
});

/** What the op application needs from the transaction context. */
export interface SorobanApplyContext {
  ledgerSeq: number;
  host: HostApi | undefined;
  hostLedger: LedgerInfo;
  /** The entry store (for TTLs). */
  store?: unknown;
  /** The transaction's PRNG seed as stellar-core derives it (`localnet/prng.ts`). */
  prngSeed?: Uint8Array;
}

/** A diagnostic `error` event (topics [error, Error(type, code)], data: message). */
export function diagnosticError(type: string, code: string, message: string): xdr.DiagnosticEvent {
  const err = xdr.ScVal.fromJson({ error: { [snake(type)]: snake(code) } });
  return new xdr.DiagnosticEvent({
    inSuccessfulContractCall: false,
    event: new xdr.ContractEvent({
      ext: xdr.ExtensionPoint.v0(),
      contractId: null,
      type: xdr.ContractEventType.diagnostic,
      body: xdr.ContractEventBody.v0(
        new xdr.ContractEventV0({
          topics: [xdr.ScVal.scvSymbol("error"), err],
          data: xdr.ScVal.scvString(message),
        }),
      ),
    }),
  });
}

/**
 * Makes a host event safe to encode: the SDK's XDR classes need a `ContractId` instance where
 * the host may hand over raw id bytes.
 */
export function normalizeEvent(ev: xdr.ContractEvent): xdr.ContractEvent {
  const id = ev.contractId as unknown;
  if (id === null || id instanceof xdr.ContractId) return ev;
  return new xdr.ContractEvent({
    ext: ev.ext,
    contractId: new xdr.ContractId(id as Uint8Array),
    type: ev.type,
    body: ev.body,
  });
}

/** {@link normalizeEvent} for a diagnostic event. */
export function normalizeDiagnostic(d: xdr.DiagnosticEvent): xdr.DiagnosticEvent {
  const ev = normalizeEvent(d.event);
  return ev === d.event
    ? d
    : new xdr.DiagnosticEvent({ inSuccessfulContractCall: d.inSuccessfulContractCall, event: ev });
}

/** Normalizes the events of a host result in place. */
export function normalizeResult<
  T extends { events: xdr.ContractEvent[]; diagnosticEvents: xdr.DiagnosticEvent[] },
>(
  res: T,
): T {
  res.events = res.events.map(normalizeEvent);
  res.diagnosticEvents = res.diagnosticEvents.map(normalizeDiagnostic);
  return res;
}

/**
 * Whether a base64 LedgerKey is a classic (disk-read) entry: its XDR union discriminant is
 * neither CONTRACT_DATA (6) nor CONTRACT_CODE (7).
 */
function isDiskKeyB64(b64: string): boolean {
  const t = fromB64(b64.slice(0, 8))[3];
  return t !== 6 && t !== 7;
}

function snake(s: string): string {
  return s.replace(/([a-z0-9])([A-Z])/g, "$1_$2").toLowerCase();
}

const trapped = (diagnosticEvents: xdr.DiagnosticEvent[]): SorobanOpOutcome => ({
  ok: false,
  result: { op_inner: { invoke_host_function: "trapped" } },
  events: [],
  diagnosticEvents,
});

/** Applies one Soroban op of a validated transaction into `view`. */
export function applySorobanOp(
  ctx: SorobanApplyContext,
  view: Overlay,
  body: xdr.OperationBody,
  source: string,
  soroban: {
    data: xdr.SorobanTransactionData;
    readOnly: string[];
    readWrite: string[];
    /** Non-refundable fee computed at validation. */
    computedFee: bigint;
  },
): SorobanOpOutcome {
  const ttlOf = ttlReader(ctx.store);
  const isArchived = archivedReader(ctx.store);
  const mins = minTtls(ctx.store);
  const fees = feesOf(ctx.store);
  const budget = soroban.data.resourceFee - soroban.computedFee;
  switch (body.type) {
    case "invokeHostFunction": {
      if (!ctx.host) {
        return trapped([diagnosticError("Context", "InternalError", "contract host not loaded")]);
      }
      const op = body.invokeHostFunctionOp;
      if (isRealHost(ctx.host)) {
        // stellar-core's apply: the real host restores the entries the tx lists (CAP-66).
        // PRNG seed: the ledger passes stellar-core's (tx set hash, application index); a
        // transaction applied alone has no tx set, so it gets one from the ledger and the op.
        const seed = ctx.prngSeed ?? sha256(
          new TextEncoder().encode(
            `${ctx.ledgerSeq}:${source}:${
              op.hostFunction.toXdr("base64")
            }:${soroban.data.resourceFee}`,
          ),
        );
        return applyRealInvoke(
          ctx,
          view,
          op,
          source,
          soroban,
          budget,
          seed,
          (code, diags, msg) => ({
            ok: false,
            result: { op_inner: { invoke_host_function: code } },
            events: [],
            diagnosticEvents: msg
              ? [
                ...diags,
                code === "entry_archived"
                  ? diagnosticError("Storage", "InvalidAction", msg)
                  : diagnosticError("Budget", "ExceededLimit", msg),
              ]
              : diags,
          }),
        );
      }
      // An archived entry in the footprint: the transaction cannot use it until restored.
      const archived = [...soroban.readOnly, ...soroban.readWrite].filter(isArchived);
      if (archived.length > 0) {
        return {
          ok: false,
          result: { op_inner: { invoke_host_function: "entry_archived" } },
          events: [],
          diagnosticEvents: [
            diagnosticError(
              "Storage",
              "InvalidAction",
              `trying to access an archived contract entry (${archived.length} in the footprint); restore it first`,
            ),
          ],
        };
      }
      let res;
      try {
        res = normalizeResult(ctx.host.invokeHostFunction({
          reader: view,
          ledger: ctx.hostLedger,
          source,
          hostFunction: op.hostFunction,
          auth: op.auth,
          mode: "enforce",
          footprint: { readOnly: new Set(soroban.readOnly), readWrite: new Set(soroban.readWrite) },
          instructionLimit: soroban.data.resources.instructions,
        }));
      } catch (e) {
        // A host bug must not leave a half-applied transaction: fail the op instead.
        return trapped([
          diagnosticError(
            "Context",
            "InternalError",
            `host failure: ${(e as Error)?.message ?? e}`,
          ),
        ]);
      }
      if (!res.ok) {
        // Running out of the declared instructions is a resource failure, as in core.
        if (res.error?.type === "Budget" && res.error.code === "ExceededLimit") {
          return {
            ok: false,
            result: { op_inner: { invoke_host_function: "resource_limit_exceeded" } },
            events: [],
            diagnosticEvents: res.diagnosticEvents,
          };
        }
        return trapped(res.diagnosticEvents);
      }
      const declared = soroban.data.resources;
      const used = res.resources;
      if (
        used.instructions > declared.instructions || used.diskReadBytes > declared.diskReadBytes ||
        used.writeBytes > declared.writeBytes
      ) {
        return {
          ok: false,
          result: { op_inner: { invoke_host_function: "resource_limit_exceeded" } },
          events: [],
          diagnosticEvents: [
            ...res.diagnosticEvents,
            diagnosticError(
              "Budget",
              "ExceededLimit",
              `operation exceeded its declared resources (instructions ${used.instructions}/${declared.instructions}, read bytes ${used.diskReadBytes}/${declared.diskReadBytes}, write bytes ${used.writeBytes}/${declared.writeBytes})`,
            ),
          ],
        };
      }
      const returnValue = res.returnValue ?? xdr.ScVal.scvVoid();
      // Refundable: events and return value, and rent for what this run created, grew or
      // extended — paid from the declared fee's refundable part, or the op fails.
      const rent = rentFee(
        rentChangesOf(view, ttlOf, res.changes, res.liveUntil, ctx.ledgerSeq, mins),
        ctx.ledgerSeq,
        fees,
      );
      const refundable = eventsFee(eventBytes(res.events, returnValue), fees) + rent;
      if (refundable > budget) {
        return insufficientRefundable(
          "invoke_host_function",
          refundable,
          budget,
          res.diagnosticEvents,
        );
      }
      for (const [k, e] of res.changes) {
        if (e) view.set(k, e);
        else view.delete(k);
      }
      const successHash = sha256(
        new xdr.InvokeHostFunctionSuccessPreImage({ returnValue, events: res.events }).toXdr(),
      );
      return {
        ok: true,
        result: { op_inner: { invoke_host_function: { success: toHex(successHash) } } },
        events: res.events,
        diagnosticEvents: res.diagnosticEvents,
        returnValue,
        ttlExtensions: res.liveUntil,
        refundableFee: refundable,
        rentFee: rent,
      };
    }
    case "extendFootprintTtl": {
      const extendTo = body.extendFootprintTtlOp.extendTo;
      if (soroban.readWrite.length > 0 || extendTo > MAX_ENTRY_TTL - 1) {
        return {
          ok: false,
          result: { op_inner: { extend_footprint_ttl: "malformed" } },
          events: [],
          diagnosticEvents: [],
        };
      }
      const ttlExtensions = new Map<string, number>();
      // Archived entries are not extended (they need a RestoreFootprint).
      for (const k of soroban.readOnly) {
        if (!isArchived(k)) ttlExtensions.set(k, ctx.ledgerSeq + extendTo);
      }
      const rent = rentFee(
        rentChangesOf(view, ttlOf, new Map(), ttlExtensions, ctx.ledgerSeq, mins),
        ctx.ledgerSeq,
        fees,
      );
      if (rent > budget) return insufficientRefundable("extend_footprint_ttl", rent, budget);
      return {
        ok: true,
        result: { op_inner: { extend_footprint_ttl: "success" } },
        events: [],
        diagnosticEvents: [],
        ttlExtensions,
        refundableFee: rent,
        rentFee: rent,
      };
    }
    case "restoreFootprint": {
      // Archived readWrite entries come back with the minimum persistent TTL; rent is paid as
      // for a new entry. Live entries are left alone.
      const restored = new Map<string, number>();
      const changes: RentChange[] = [];
      for (const k of soroban.readWrite) {
        if (!isArchived(k)) continue;
        const e = view.get(k);
        if (!e) continue;
        const until = ctx.ledgerSeq + mins.minPersistent - 1;
        restored.set(k, until);
        changes.push({
          persistent: true,
          code: e.data.type === "contractCode",
          oldSize: 0,
          newSize: e.toXdr().length,
          oldLiveUntil: 0,
          newLiveUntil: until,
        });
      }
      const rent = rentFee(changes, ctx.ledgerSeq, fees);
      if (rent > budget) return insufficientRefundable("restore_footprint", rent, budget);
      return {
        ok: true,
        result: { op_inner: { restore_footprint: "success" } },
        events: [],
        diagnosticEvents: [],
        restored,
        refundableFee: rent,
        rentFee: rent,
      };
    }
    default:
      return { ok: false, result: "op_not_supported", events: [], diagnosticEvents: [] };
  }
}

/**
 * base64 XDR of a v0 SorobanTransactionData, assembled from the footprint keys' base64 XDR
 * (simulation's hot path: no decoding and re-encoding of every key).
 */
export function sorobanDataB64(
  readOnly: string[],
  readWrite: string[],
  instructions: number,
  diskReadBytes: number,
  writeBytes: number,
  fee: bigint,
): string {
  const keys = [...readOnly, ...readWrite].map(fromB64);
  const size = 4 + 4 + 4 + keys.reduce((n, k) => n + k.length, 0) + 12 + 8;
  const out = new Uint8Array(size);
  const dv = new DataView(out.buffer);
  let o = 0;
  dv.setUint32(o, 0); // ext v0
  o += 4;
  dv.setUint32(o, readOnly.length);
  o += 4;
  for (let i = 0; i < readOnly.length; i++) {
    out.set(keys[i], o);
    o += keys[i].length;
  }
  dv.setUint32(o, readWrite.length);
  o += 4;
  for (let i = readOnly.length; i < keys.length; i++) {
    out.set(keys[i], o);
    o += keys[i].length;
  }
  dv.setUint32(o, instructions);
  dv.setUint32(o + 4, diskReadBytes);
  dv.setUint32(o + 8, writeBytes);
  dv.setBigInt64(o + 12, fee);
  return toB64(out);
}

/** simulateTransaction's result (stellar-rpc shape, before latestLedger is added). */
export interface SimulationResult {
  error?: string;
  /** Present when archived entries must be restored first. */
  restorePreamble?: { minResourceFee: string; transactionData: string };
  events?: string[];
  transactionData?: string;
  minResourceFee?: string;
  results?: { xdr: string; auth: string[] }[];
}

/** What simulation reads. */
export interface SimulationContext {
  reader: LedgerReader;
  host: HostApi | undefined;
  hostLedger: LedgerInfo;
  /**
   * stellar-rpc's `useUpgradedAuth` request flag: recorded address auth uses
   * `SOROBAN_CREDENTIALS_ADDRESS_V2` (CAP-71) instead of v1. Default false, as in stellar-rpc.
   */
  useUpgradedAuth?: boolean;
}

const AUTH_MODES = ["enforce", "record", "record_allow_nonroot"];

/** Go's `OperationType.String()` of an op body type ("payment" → "OperationTypePayment"). */
function goOpTypeName(t: string): string {
  return "OperationType" + t[0].toUpperCase() + t.slice(1);
}

/** Fixed part of simulation's refundable margin (about two TTL writes). */
const REFUNDABLE_MARGIN = 25_000n;

/** Rent (as for new entries) and total size of restoring the archived ones among `keys`. */
function restoreRent(ctx: SimulationContext, keys: string[]): { rent: bigint; bytes: number } {
  const isArchived = archivedReader(ctx.reader);
  const mins = minTtls(ctx.reader);
  const seq = ctx.hostLedger.sequence;
  const changes: RentChange[] = [];
  let bytes = 0;
  for (const k of keys) {
    if (!isArchived(k)) continue;
    const e = ctx.reader.get(k);
    if (!e) continue;
    const size = e.toXdr().length;
    bytes += size;
    changes.push({
      persistent: true,
      code: e.data.type === "contractCode",
      oldSize: 0,
      newSize: size,
      oldLiveUntil: 0,
      newLiveUntil: seq + mins.minPersistent - 1,
    });
  }
  return { rent: rentFee(changes, seq, feesOf(ctx.reader)), bytes };
}

/**
 * Size the signed envelope will have: the simulated envelope with the returned transaction
 * data and auth entries, one transaction signature, and a signature allowance per address
 * credential still to be signed (over-estimates are harmless; under-estimates would make the
 * declared fee too low for the real size).
 */
function estimatedTxSize(
  envelope: xdr.TransactionEnvelope,
  envelopeBytes: number | undefined,
  dataBytes: number,
  auth: { entry: xdr.SorobanAuthorizationEntry; b64: string }[],
): number {
  let size = (envelopeBytes ?? envelope.toXdr().length) + dataBytes + 72 + 32;
  if (envelope.type === "envelopeTypeTx") {
    const tx = envelope.v1.tx;
    if (tx.ext.type === "sorobanData") size -= tx.ext.sorobanData.toXdr().length;
    const body = tx.operations[0]?.body;
    if (body?.type === "invokeHostFunction") {
      for (const a of body.invokeHostFunctionOp.auth) size -= a.toXdr().length;
    }
  }
  for (const a of auth) {
    size += (a.b64.length * 3) / 4;
    if (a.entry.credentials.type !== "sorobanCredentialsSourceAccount") size += 200;
  }
  return size;
}

/** Simulates a transaction envelope as stellar-rpc does (errors go into `error`). */
export function simulateEnvelope(
  ctx: SimulationContext,
  envelope: xdr.TransactionEnvelope,
  authModeParam: string | undefined,
  instructionLeeway = 0,
  /** Byte size of `envelope`'s XDR when the caller knows it (saves re-encoding it). */
  envelopeBytes?: number,
): SimulationResult {
  let tx: xdr.Transaction | xdr.TransactionV0;
  if (envelope.type === "envelopeTypeTx") tx = envelope.v1.tx;
  else if (envelope.type === "envelopeTypeTxV0") tx = envelope.v0.tx;
  else tx = envelope.feeBump.tx.innerTx.v1.tx;
  if (tx.operations.length !== 1) return { error: "Transaction contains more than one operation" };
  const op = tx.operations[0];
  const body = op.body;
  let authMode = authModeParam ?? "";
  if (authMode !== "" && !AUTH_MODES.includes(authMode)) {
    return {
      error: `optional 'authMode' must be one of ${AUTH_MODES.join(",")} when included`,
    };
  }
  if (body.type === "invokeHostFunction") {
    const hasAuth = body.invokeHostFunctionOp.auth.length > 0;
    if (authMode === "") authMode = hasAuth ? "enforce" : "record";
    else if (hasAuth && authMode !== "enforce") {
      return { error: `cannot set authMode to '${authMode}' with an auth footprint` };
    }
  } else if (body.type === "extendFootprintTtl" || body.type === "restoreFootprint") {
    if (authMode !== "") {
      return { error: "cannot set authMode with non-InvokeHostFunction operations" };
    }
  } else {
    return { error: `transaction contains unsupported operation type: ${goOpTypeName(body.type)}` };
  }
  if (tx.memo.type !== "memoNone") {
    return { error: "Transaction contains a memo. Soroban transactions do not support memos." };
  }
  const source = op.sourceAccount
    ? muxedToG(op.sourceAccount)
    : "sourceAccount" in tx && tx.sourceAccount
    ? muxedToG(tx.sourceAccount)
    : muxedToG(
      xdr.MuxedAccount.keyTypeEd25519((tx as xdr.TransactionV0).sourceAccountEd25519.value),
    );

  if (body.type !== "invokeHostFunction") {
    const ext = "ext" in tx ? tx.ext : undefined;
    if (!ext || ext.type !== "sorobanData") {
      return {
        error:
          "To perform a SimulateTransaction for ExtendFootprintTtl or RestoreFootprint operations," +
          " SorobanTransactionData must be provided",
      };
    }
    const fp = ext.sorobanData.resources.footprint;
    if (isRealHost(ctx.host)) {
      return simulateReal(ctx.reader, ctx.hostLedger, source, body, "", fp);
    }
    let writeBytes = 0;
    if (body.type === "restoreFootprint") {
      for (const k of fp.readWrite) {
        writeBytes += ctx.reader.get(k.toXdr("base64"))?.toXdr().length ?? 0;
      }
    }
    let rent = 0n;
    if (body.type === "restoreFootprint") {
      rent = restoreRent(ctx, fp.readWrite.map((k) => k.toXdr("base64"))).rent;
    }
    if (body.type === "extendFootprintTtl") {
      const extendTo = body.extendFootprintTtlOp.extendTo;
      const ext = new Map<string, number>();
      for (const k of fp.readOnly) ext.set(k.toXdr("base64"), ctx.hostLedger.sequence + extendTo);
      rent = rentFee(
        rentChangesOf(
          ctx.reader,
          ttlReader(ctx.reader),
          new Map(),
          ext,
          ctx.hostLedger.sequence,
          minTtls(ctx.reader),
        ),
        ctx.hostLedger.sequence,
        feesOf(ctx.reader),
      );
    }
    const draft = new xdr.SorobanTransactionData({
      ext: xdr.SorobanTransactionDataExt.v0(),
      resources: new xdr.SorobanResources({
        footprint: fp,
        instructions: 0,
        diskReadBytes: 0,
        writeBytes,
      }),
      resourceFee: 0n,
    });
    const fee = nonRefundableFee({
      instructions: 0,
      diskReadEntries: [...fp.readOnly, ...fp.readWrite].filter((k) =>
        k.type !== "contractData" && k.type !== "contractCode"
      ).length,
      writeEntries: fp.readWrite.length,
      diskReadBytes: 0,
      writeBytes,
      txSizeBytes: estimatedTxSize(envelope, envelopeBytes, draft.toXdr().length, []),
    }, feesOf(ctx.reader)) + rent + (rent > 0n ? rent / 5n + REFUNDABLE_MARGIN : 0n);
    const data = new xdr.SorobanTransactionData({
      ext: xdr.SorobanTransactionDataExt.v0(),
      resources: new xdr.SorobanResources({
        footprint: fp,
        instructions: 0,
        diskReadBytes: 0,
        writeBytes,
      }),
      resourceFee: fee,
    });
    return { transactionData: data.toXdr("base64"), minResourceFee: fee.toString(), events: [] };
  }

  if (isRealHost(ctx.host)) {
    try {
      return simulateReal(
        ctx.reader,
        ctx.hostLedger,
        source,
        body,
        authMode,
        undefined,
        instructionLeeway,
        ctx.useUpgradedAuth,
      );
    } catch (e) {
      return {
        error: `HostError: Error(Context, InternalError)\n\nhost failure: ${
          (e as Error)?.message ?? e
        }`,
      };
    }
  }
  if (!ctx.host) return { error: "contract host not loaded" };
  const inv = body.invokeHostFunctionOp;
  let res;
  try {
    res = normalizeResult(ctx.host.invokeHostFunction({
      reader: ctx.reader,
      ledger: ctx.hostLedger,
      source,
      hostFunction: inv.hostFunction,
      auth: inv.auth,
      mode: authMode as AuthMode,
    }));
  } catch (e) {
    return {
      error: `HostError: Error(Context, InternalError)\n\nhost failure: ${
        (e as Error)?.message ?? e
      }`,
    };
  }
  const events = res.diagnosticEvents.map((e) => e.toXdr("base64"));
  if (!res.ok) {
    const e = res.error;
    return {
      error: res.errorString ??
        `HostError: Error(${e?.type ?? "WasmVm"}, ${
          typeof e?.code === "number" ? `#${e.code}` : e?.code ?? "InvalidAction"
        })`,
      events,
    };
  }
  const instructions = paddedInstructions(res.resources.instructions) + instructionLeeway;
  const resources = {
    instructions,
    diskReadEntries: [...res.readOnly, ...res.readWrite].filter(isDiskKeyB64).length,
    writeEntries: res.readWrite.length,
    diskReadBytes: res.resources.diskReadBytes,
    writeBytes: res.resources.writeBytes,
  };
  const draftData = sorobanDataB64(
    res.readOnly,
    res.readWrite,
    instructions,
    res.resources.diskReadBytes,
    res.resources.writeBytes,
    0n,
  );
  const authB64 = res.auth.map((a) => a.toXdr("base64"));
  const txSizeBytes = estimatedTxSize(
    envelope,
    envelopeBytes,
    (draftData.length * 3) / 4,
    res.auth.map((entry, i) => ({ entry, b64: authB64[i] })),
  );
  const rent = rentFee(
    rentChangesOf(
      ctx.reader,
      ttlReader(ctx.reader),
      res.changes,
      res.liveUntil,
      ctx.hostLedger.sequence,
      minTtls(ctx.reader),
    ),
    ctx.hostLedger.sequence,
    feesOf(ctx.reader),
  );
  const refundable = rent +
    eventsFee(eventBytes(res.events, res.returnValue ?? xdr.ScVal.scvVoid()), feesOf(ctx.reader));
  // The transaction lands in a later ledger than the one simulated: TTL extensions requested
  // relative to the ledger sequence reach a little further (and may newly count as an
  // extension, with its TTL write). A margin on the refundable part keeps the declared fee
  // sufficient; what is not used is refunded.
  const fee = nonRefundableFee({ ...resources, txSizeBytes }, feesOf(ctx.reader)) + refundable +
    refundable / 5n + REFUNDABLE_MARGIN;
  const transactionData = sorobanDataB64(
    res.readOnly,
    res.readWrite,
    instructions,
    res.resources.diskReadBytes,
    res.resources.writeBytes,
    fee,
  );
  // Archived entries in the footprint: the call was simulated as if they were restored; the
  // client must first send the RestoreFootprint transaction described by the preamble.
  const isArchived = archivedReader(ctx.reader);
  const archived = [...res.readOnly, ...res.readWrite].filter(isArchived);
  let restorePreamble: SimulationResult["restorePreamble"];
  if (archived.length > 0) {
    const { rent, bytes } = restoreRent(ctx, archived);
    const draft = sorobanDataB64([], archived, 0, bytes, bytes, 0n);
    const preFee = nonRefundableFee({
      instructions: 0,
      diskReadEntries: archived.length,
      writeEntries: archived.length,
      diskReadBytes: bytes,
      writeBytes: bytes,
      txSizeBytes: 300 + (draft.length * 3) / 4,
    }, feesOf(ctx.reader)) + rent;
    restorePreamble = {
      minResourceFee: preFee.toString(),
      transactionData: sorobanDataB64([], archived, 0, bytes, bytes, preFee),
    };
  }
  return {
    ...(restorePreamble ? { restorePreamble } : {}),
    transactionData,
    minResourceFee: fee.toString(),
    results: [{
      xdr: (res.returnValue ?? xdr.ScVal.scvVoid()).toXdr("base64"),
      auth: authB64,
    }],
    events,
  };
}
