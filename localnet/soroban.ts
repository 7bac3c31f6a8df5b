/**
 * Soroban operations: applying InvokeHostFunction (through the host, with the declared
 * footprint enforced), ExtendFootprintTtl/RestoreFootprint (successes; entries never
 * archive here), and simulation with stellar-rpc's pre-checks and messages.
 *
 * @module
 */
import { xdr } from "@stellar/stellar-sdk";
import type { OpResultJson } from "./classic.ts";
import { MAX_ENTRY_TTL } from "./constants.ts";
import { paddedInstructions, resourceFee } from "./fees.ts";
import type { HostApi } from "./host_api.ts";
import type { AuthMode, LedgerInfo, LedgerReader } from "./host/types.ts";
import type { Overlay } from "./store.ts";
import { fromB64, muxedToG, sha256, toB64, toHex } from "./util.ts";

/** What applying one Soroban op produced. */
export interface SorobanOpOutcome {
  ok: boolean;
  result: OpResultJson;
  events: xdr.ContractEvent[];
  diagnosticEvents: xdr.DiagnosticEvent[];
  returnValue?: xdr.ScVal;
  /** TTL extensions to apply on success (ExtendFootprintTtl): key → live-until ledger. */
  ttlExtensions?: Map<string, number>;
}

/** What the op application needs from the transaction context. */
export interface SorobanApplyContext {
  ledgerSeq: number;
  host: HostApi | undefined;
  hostLedger: LedgerInfo;
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
  soroban: { data: xdr.SorobanTransactionData; readOnly: string[]; readWrite: string[] },
): SorobanOpOutcome {
  switch (body.type) {
    case "invokeHostFunction": {
      if (!ctx.host) {
        return trapped([diagnosticError("Context", "InternalError", "contract host not loaded")]);
      }
      const op = body.invokeHostFunctionOp;
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
      for (const [k, e] of res.changes) {
        if (e) view.set(k, e);
        else view.delete(k);
      }
      const returnValue = res.returnValue ?? xdr.ScVal.scvVoid();
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
      for (const k of soroban.readOnly) ttlExtensions.set(k, ctx.ledgerSeq + extendTo);
      return {
        ok: true,
        result: { op_inner: { extend_footprint_ttl: "success" } },
        events: [],
        diagnosticEvents: [],
        ttlExtensions,
      };
    }
    case "restoreFootprint":
      return {
        ok: true,
        result: { op_inner: { restore_footprint: "success" } },
        events: [],
        diagnosticEvents: [],
      };
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
    let writeBytes = 0;
    if (body.type === "restoreFootprint") {
      for (const k of fp.readWrite) {
        writeBytes += ctx.reader.get(k.toXdr("base64"))?.toXdr().length ?? 0;
      }
    }
    const fee = resourceFee({
      instructions: 0,
      diskReadBytes: 0,
      writeBytes,
      readOnlyEntries: fp.readOnly.length,
      readWriteEntries: fp.readWrite.length,
    });
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
  const fee = resourceFee({
    instructions,
    diskReadBytes: res.resources.diskReadBytes,
    writeBytes: res.resources.writeBytes,
    readOnlyEntries: res.readOnly.length,
    readWriteEntries: res.readWrite.length,
  });
  const transactionData = sorobanDataB64(
    res.readOnly,
    res.readWrite,
    instructions,
    res.resources.diskReadBytes,
    res.resources.writeBytes,
    fee,
  );
  return {
    transactionData,
    minResourceFee: fee.toString(),
    results: [{
      xdr: (res.returnValue ?? xdr.ScVal.scvVoid()).toXdr("base64"),
      auth: res.auth.map((a) => a.toXdr("base64")),
    }],
    events,
  };
}
