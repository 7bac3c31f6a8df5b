/**
 * The `HostError` debug string stellar-rpc returns as a simulation `error`: `HostError:
 * Error(..)`, then the event log newest first, rendered from the real host's diagnostic events
 * the way the host's `Display` impls print them.
 *
 * @module
 */
import { Address, StrKey, type xdr } from "@stellar/stellar-sdk";

// deno-lint-ignore no-explicit-any
type Any = any;

/** One event of the log. */
export interface HostEvent {
  /** Emitting contract's raw id (null for host-level diagnostics). */
  contractId: Uint8Array | null;
  diagnostic: boolean;
  topics: xdr.ScVal[];
  data: xdr.ScVal;
  /** Set when the frame that emitted it failed (rolled back). */
  failed: boolean;
}

const ERROR_TYPES = [
  "Contract",
  "WasmVm",
  "Context",
  "Storage",
  "Object",
  "Crypto",
  "Events",
  "Budget",
  "Value",
  "Auth",
];
const ERROR_CODES = [
  "ArithDomain",
  "IndexBounds",
  "InvalidInput",
  "MissingValue",
  "ExistingValue",
  "ExceededLimit",
  "InvalidAction",
  "InternalError",
  "UnexpectedType",
  "UnexpectedSize",
];

/** `Error(Type, Code)` / `Error(Contract, #N)` of a host error. */
export function errorDebug(type: string, code: number | string): string {
  return type === "Contract" ? `Error(Contract, #${code})` : `Error(${type}, ${code})`;
}

function errorOfScVal(v: Any): string {
  const e = v.error;
  const w = e.toXdrObject();
  if (w.type === 0) return `Error(Contract, #${w.contractCode})`;
  return `Error(${ERROR_TYPES[w.type] ?? w.type}, ${ERROR_CODES[w.code] ?? w.code})`;
}

function int128(p: Any, signed: boolean): bigint {
  const n = (BigInt(p.hi) << 64n) | BigInt(p.lo);
  return signed ? BigInt.asIntN(128, n) : n;
}

function hex(b: Uint8Array): string {
  let s = "";
  for (const x of b) s += x.toString(16).padStart(2, "0");
  return s;
}

/** Renders an ScVal like the host's `display_scval`. */
export function displayScVal(v: xdr.ScVal): string {
  const x = v as Any;
  switch (v.type) {
    case "scvBool":
      return String(x.b);
    case "scvVoid":
      return "Void";
    case "scvError":
      return errorOfScVal(x);
    case "scvU32":
      return String(x.u32);
    case "scvI32":
      return String(x.i32);
    case "scvU64":
      return String(x.u64);
    case "scvI64":
      return String(x.i64);
    case "scvTimepoint":
      return `TimePoint(${x.timepoint})`;
    case "scvDuration":
      return `Duration(${x.duration})`;
    case "scvU128":
      return String(int128(x.u128, false));
    case "scvI128":
      return String(int128(x.i128, true));
    case "scvBytes":
      return `Bytes(${hex(x.bytes.value)})`;
    case "scvString":
      return JSON.stringify(String(x.str));
    case "scvSymbol":
      return String(x.sym);
    case "scvVec":
      return `[${((x.vec ?? []) as xdr.ScVal[]).map(displayScVal).join(", ")}]`;
    case "scvMap":
      return `{${
        ((x.map ?? []) as xdr.ScMapEntry[]).map((e) =>
          `${displayScVal(e.key)}: ${displayScVal(e.val)}`
        )
          .join(", ")
      }}`;
    case "scvAddress":
      return Address.fromScAddress(x.address).toString();
    case "scvLedgerKeyContractInstance":
      return "LedgerKeyContractInstance";
    case "scvLedgerKeyNonce":
      return `LedgerKeyNonce(${x.nonceKey.nonce})`;
    case "scvContractInstance": {
      const ex = x.instance.executable;
      return ex.type === "contractExecutableWasm"
        ? `ContractInstance(Wasm(${hex(ex.wasmHash.value)}))`
        : "ContractInstance(StellarAsset)";
    }
    default:
      return v.type;
  }
}

/** Renders one event like the host's `Display for HostEvent`. */
export function displayEvent(e: HostEvent): string {
  const kind = e.diagnostic ? "Diagnostic" : "Contract";
  let s = e.failed ? `[Failed ${kind} Event (not emitted)] ` : `[${kind} Event] `;
  if (e.contractId) s += `contract:${StrKey.encodeContract(e.contractId as Any)}, `;
  const isFnCall = e.topics.length > 0 && e.topics[0].type === "scvSymbol" &&
    String((e.topics[0] as Any).sym) === "fn_call";
  const topics = e.topics.map((t, i) => {
    if (i === 1 && isFnCall && t.type === "scvBytes" && (t as Any).bytes.value.length === 32) {
      return StrKey.encodeContract((t as Any).bytes.value);
    }
    return displayScVal(t);
  });
  return `${s}topics:[${topics.join(", ")}], data:${displayScVal(e.data)}`;
}

/**
 * The `HostError` debug string: `HostError: Error(..)`, a blank line, then the event log newest
 * first (at most 25 events, as the host prints).
 */
export function hostErrorString(type: string, code: number | string, events: HostEvent[]): string {
  let s = `HostError: ${errorDebug(type, code)}\n`;
  if (events.length > 0) {
    s += "\nEvent log (newest first):\n";
    const shown = events.slice(-25).reverse();
    shown.forEach((e, i) => (s += `   ${i}: ${displayEvent(e)}\n`));
    if (events.length > 25) s += "   25: ... elided ...\n";
  }
  return s;
}
