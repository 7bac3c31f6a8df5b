/**
 * Soroban operations: applying InvokeHostFunction (on the real host, `real_host/`, with the
 * declared footprint enforced, as stellar-core does), ExtendFootprintTtl/RestoreFootprint (core's
 * own operations: TTLs and rent, no host run), and simulation (the real preflight) behind
 * stellar-rpc's pre-checks and messages.
 *
 * @module
 */
import { xdr } from "@stellar/stellar-sdk";
import type { OpResultJson } from "./classic.ts";
import { MAX_ENTRY_TTL, MIN_PERSISTENT_TTL, MIN_TEMPORARY_TTL } from "./constants.ts";
import type { HostApi } from "./host_api.ts";
import type { LedgerInfo, LedgerReader } from "./host_api.ts";
import type { Overlay } from "./store.ts";
import { muxedToG, sha256 } from "./util.ts";
import {
  applyRealInvoke,
  coreOpRent,
  simulateReal,
  type TtlChange,
} from "./real_host/node_host.ts";

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

function minTtls(src: unknown): { minPersistent: number; minTemporary: number } {
  return (src as TtlSource | undefined)?.ttl ??
    { minPersistent: MIN_PERSISTENT_TTL, minTemporary: MIN_TEMPORARY_TTL };
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
  const budget = soroban.data.resourceFee - soroban.computedFee;
  switch (body.type) {
    case "invokeHostFunction": {
      if (!ctx.host) {
        return trapped([diagnosticError("Context", "InternalError", "contract host not loaded")]);
      }
      const op = body.invokeHostFunctionOp;
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
      const changes: TtlChange[] = [];
      // Archived entries are not extended (they need a RestoreFootprint); entries already live
      // past the target are left alone, as core does.
      for (const k of soroban.readOnly) {
        if (isArchived(k)) continue;
        const entry = view.get(k);
        const old = ttlOf(k);
        const target = ctx.ledgerSeq + extendTo;
        if (!entry || old === undefined || old >= target) continue;
        ttlExtensions.set(k, target);
        changes.push({ entry, oldLiveUntil: old, newLiveUntil: target, restored: false });
      }
      const rent = coreOpRent(ctx, changes);
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
      const changes: TtlChange[] = [];
      for (const k of soroban.readWrite) {
        if (!isArchived(k)) continue;
        const entry = view.get(k);
        if (!entry) continue;
        const until = ctx.ledgerSeq + mins.minPersistent - 1;
        restored.set(k, until);
        changes.push({ entry, oldLiveUntil: 0, newLiveUntil: until, restored: true });
      }
      const rent = coreOpRent(ctx, changes);
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

/** Simulates a transaction envelope as stellar-rpc does (errors go into `error`). */
export function simulateEnvelope(
  ctx: SimulationContext,
  envelope: xdr.TransactionEnvelope,
  authModeParam: string | undefined,
  instructionLeeway = 0,
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
    return simulateReal(ctx.reader, ctx.hostLedger, source, body, "", fp);
  }
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
