/**
 * Helpers shared by the DEX and allocation-vault stand-ins: typed storage access over ScVal keys,
 * the test-only fault switch, and thin wrappers over SAC token calls.
 *
 * @module
 */
import { scValToBigInt, scValToNative, xdr } from "@stellar/stellar-sdk";
import {
  addr,
  bool,
  type Env,
  i128,
  type Storage,
  T,
  type TypeDef,
  u32,
} from "../../../contracts/sdk.ts";

// ---------------------------------------------------------------------------------------------
// Typed storage
// ---------------------------------------------------------------------------------------------

/** Reads an i128 (absent = `def`). */
export function getI128(st: Storage, key: xdr.ScVal, def = 0n): bigint {
  const v = st.get(key);
  return v === undefined ? def : scValToBigInt(v);
}

/** Writes an i128. */
export function setI128(st: Storage, key: xdr.ScVal, v: bigint): void {
  st.set(key, i128(v));
}

/** Reads an address, or undefined. */
export function getAddr(st: Storage, key: xdr.ScVal): string | undefined {
  const v = st.get(key);
  return v === undefined ? undefined : (scValToNative(v) as string);
}

/** Writes an address. */
export function setAddr(st: Storage, key: xdr.ScVal, a: string): void {
  st.set(key, addr(a));
}

/** Reads a u32 (absent = `def`). */
export function getU32(st: Storage, key: xdr.ScVal, def = 0): number {
  const v = st.get(key);
  return v === undefined ? def : Number(scValToNative(v));
}

/** Writes a u32. */
export function setU32(st: Storage, key: xdr.ScVal, v: number): void {
  st.set(key, u32(v));
}

/** Reads a bool (absent = `def`). */
export function getBool(st: Storage, key: xdr.ScVal, def = false): boolean {
  const v = st.get(key);
  return v === undefined ? def : scValToNative(v) === true;
}

/** Writes a bool. */
export function setBool(st: Storage, key: xdr.ScVal, v: boolean): void {
  st.set(key, bool(v));
}

/** Reads a value of a spec type through the contract's spec (absent = undefined). */
export function getTyped<R>(env: Env, st: Storage, key: xdr.ScVal, type: TypeDef): R | undefined {
  const v = st.get(key);
  return v === undefined ? undefined : env.fromScVal<R>(v, type);
}

/** Writes a value of a spec type through the contract's spec. */
export function setTyped(env: Env, st: Storage, key: xdr.ScVal, value: unknown, type: TypeDef) {
  st.set(key, env.toScVal(value, type));
}

// ---------------------------------------------------------------------------------------------
// Error tables
// ---------------------------------------------------------------------------------------------

/** A contract's errors as `defineSpec` takes them: name → [code, message]. */
export type ErrorTable = Record<string, [number, string]>;

/** The codes of an error table by name, so `fail(E.Name)` and the spec read one table. */
export function errorCodes<T extends ErrorTable>(table: T): { readonly [K in keyof T]: number } {
  return Object.fromEntries(Object.entries(table).map(([name, [code]]) => [name, code])) as {
    readonly [K in keyof T]: number;
  };
}

// ---------------------------------------------------------------------------------------------
// Native value helpers (what the host hands a contract)
// ---------------------------------------------------------------------------------------------

/** Coerces an integer-ish native value (number | bigint | string) to bigint. */
export function big(v: unknown): bigint {
  if (typeof v === "bigint") return v;
  if (typeof v === "number" || typeof v === "string") return BigInt(v);
  throw new TypeError(`not an integer: ${String(v)}`);
}

/** An Option value: null/undefined are None. */
export function opt<V>(v: V | null | undefined): V | undefined {
  return v === null ? undefined : v;
}

/** A union value as the SDK spec codec produces it (`{tag, values?}`). */
export interface UnionValue {
  tag: string;
  values?: unknown[];
}

// ---------------------------------------------------------------------------------------------
// Fault switch (test-only, documented as "transient" / "skew")
// ---------------------------------------------------------------------------------------------

/** Spec union of the fault modes, to include in a contract's `unions`. */
export const FAULT_MODE_UNION: [string, ...TypeDef[]][] = [
  ["None"],
  ["Transient", T.u32],
  ["Skew", T.u32],
];

/** Spec struct returned by `get_fault` (fields sorted by name). */
export const FAULT_STATE_STRUCT: [string, TypeDef][] = [
  ["active", T.bool],
  ["mode", T.udt("FaultMode")],
  ["set_ledger", T.u32],
];

/** A decoded fault record. kind: 0 none, 1 transient, 2 skew. */
export interface FaultRecord {
  kind: 0 | 1 | 2;
  param: number;
  setLedger: number;
}

const NO_FAULT: FaultRecord = { kind: 0, param: 0, setLedger: 0 };

/**
 * Parses a `FaultMode` union value. Returns undefined when it is malformed or a skew is not
 * in [0, 10000).
 */
export function parseFaultMode(mode: UnionValue, ledger: number): FaultRecord | undefined {
  const param = Number(mode.values?.[0] ?? 0);
  switch (mode.tag) {
    case "None":
      return { kind: 0, param: 0, setLedger: ledger };
    case "Transient":
      return Number.isInteger(param) && param >= 0
        ? { kind: 1, param, setLedger: ledger }
        : undefined;
    case "Skew":
      return Number.isInteger(param) && param >= 0 && param < 10_000
        ? { kind: 2, param, setLedger: ledger }
        : undefined;
    default:
      return undefined;
  }
}

/** Reads the fault record stored under `key` (a Vec[u32 kind, u32 param, u32 set_ledger]). */
export function readFault(st: Storage, key: xdr.ScVal): FaultRecord {
  const v = st.get(key);
  if (v === undefined) return NO_FAULT;
  const [k, p, s] = (scValToNative(v) as number[]).map(Number);
  return { kind: k as 0 | 1 | 2, param: p, setLedger: s };
}

/** Stores a fault record. */
export function writeFault(st: Storage, key: xdr.ScVal, f: FaultRecord): void {
  st.set(key, xdr.ScVal.scvVec([u32(f.kind), u32(f.param), u32(f.setLedger)]));
}

/**
 * Whether a transient fault fails calls at ledger `seq`. `Transient(n)` is active while
 * `seq <= set_ledger + n`; `Transient(0)` stays active until `set_fault(None)`. (A per-call
 * counter cannot work: a failing call rolls back its own storage writes, so it could never
 * count itself.)
 */
export function transientActive(f: FaultRecord, seq: number): boolean {
  return f.kind === 1 && (f.param === 0 || seq <= f.setLedger + f.param);
}

/** The skew in bps (0 when no skew fault is set). */
export function skewOf(f: FaultRecord): number {
  return f.kind === 2 ? f.param : 0;
}

/** The `FaultState` struct value returned by `get_fault`. */
export function faultState(f: FaultRecord, seq: number) {
  const mode = f.kind === 0
    ? { tag: "None" }
    : { tag: f.kind === 1 ? "Transient" : "Skew", values: [f.param] };
  return {
    active: f.kind === 2 || transientActive(f, seq),
    mode,
    set_ledger: f.setLedger,
  };
}

// ---------------------------------------------------------------------------------------------
// Token (SAC / SEP-41) calls
// ---------------------------------------------------------------------------------------------

/** `token.balance(id)`. */
export function tokenBalance(env: Env, token: string, id: string): bigint {
  return big(env.call(token, "balance", [id]));
}

/** `token.transfer(from, to, amount)`; `from` must be authorized (or be the caller). */
export function tokenTransfer(env: Env, token: string, from: string, to: string, amount: bigint) {
  env.call(token, "transfer", [from, to, amount]);
}
