/**
 * A node with the forwarder contract deployed, and helpers to call host functions through it
 * over JSON-RPC simulation.
 *
 * @module
 */
import {
  Address,
  nativeToScVal,
  Operation,
  rpc,
  scValToNative,
  TransactionBuilder,
  xdr,
} from "@stellar/stellar-sdk";
import type { Keypair } from "@stellar/stellar-sdk";
import { startTestNode, type TestNode } from "../localnet.ts";
import { forwarderWasm, fwdName } from "./forwarder.ts";
import { deployWasm } from "./deploy_helpers.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** The outcome of one simulated call. */
export type CallResult = { ok: true; v: xdr.ScVal; sim: Any } | { ok: false; error: string };

export interface Fwd extends AsyncDisposable {
  node: TestNode;
  alice: Keypair;
  id: string;
  /** Simulates `fn` of `contract` (default the forwarder) with ScVal args. */
  sim(fn: string, args: xdr.ScVal[], contract?: string): Promise<CallResult>;
  /** Calls host function `key` (e.g. "v.6") through the forwarder; returns the result ScVal. */
  hf(key: string, ...args: xdr.ScVal[]): Promise<xdr.ScVal>;
  /** Same, expecting a failure; returns the error string. */
  hfErr(key: string, ...args: xdr.ScVal[]): Promise<string>;
  /** The linear-memory variant: stages `data` at offset 0; returns [result, memory[0..512)]. */
  hfMem(key: string, data: Uint8Array, ...args: xdr.ScVal[]): Promise<[xdr.ScVal, Uint8Array]>;
}

export async function forwarder(): Promise<Fwd> {
  const node = await startTestNode();
  const alice = await node.newAccount();
  const id = await deployWasm(node, alice, await forwarderWasm());
  const account = await node.server.getAccount(alice.publicKey());
  const sim = async (fn: string, args: xdr.ScVal[], contract = id): Promise<CallResult> => {
    const tx = new TransactionBuilder(account, {
      fee: "100",
      networkPassphrase: node.networkPassphrase,
    }).addOperation(Operation.invokeContractFunction({ contract, function: fn, args }))
      .setTimeout(60).build();
    const s = await node.server.simulateTransaction(tx);
    if (rpc.Api.isSimulationError(s)) return { ok: false, error: s.error };
    return { ok: true, v: (s as Any).result.retval, sim: s };
  };
  const hf = async (key: string, ...args: xdr.ScVal[]) => {
    const r = await sim(fwdName(key), args);
    if (!r.ok) throw new Error(`${key} failed: ${r.error.split("\n")[0]}`);
    return r.v;
  };
  const hfErr = async (key: string, ...args: xdr.ScVal[]) => {
    const r = await sim(fwdName(key), args);
    if (r.ok) throw new Error(`${key} unexpectedly succeeded: ${r.v.toXdr("base64")}`);
    return r.error;
  };
  const hfMem = async (key: string, data: Uint8Array, ...args: xdr.ScVal[]) => {
    const r = await sim("m_" + fwdName(key), [bytes(data), ...args]);
    if (!r.ok) throw new Error(`${key} failed: ${r.error.split("\n")[0]}`);
    const [res, mem] = (r.v as Any).vec as xdr.ScVal[];
    return [res, (mem as Any).bytes.value ?? (mem as Any).bytes] as [xdr.ScVal, Uint8Array];
  };
  return {
    node,
    alice,
    id,
    sim,
    hf,
    hfErr,
    hfMem,
    [Symbol.asyncDispose]: () => node.close(),
  };
}

/** ScVal helpers. */
export const u32 = (n: number): xdr.ScVal => xdr.ScVal.scvU32(n);
export const i32 = (n: number): xdr.ScVal => xdr.ScVal.scvI32(n);
export const sym = (s: string): xdr.ScVal => xdr.ScVal.scvSymbol(s);
export const str = (s: string): xdr.ScVal => xdr.ScVal.scvString(s);
export const bytes = (b: Uint8Array): xdr.ScVal => xdr.ScVal.scvBytes(b as Any);
export const vec = (...v: xdr.ScVal[]): xdr.ScVal => xdr.ScVal.scvVec(v);
export const num = (n: bigint | number, type: string): xdr.ScVal =>
  nativeToScVal(BigInt(n), { type } as Any);
export const addr = (s: string): xdr.ScVal => nativeToScVal(Address.fromString(s));
export const native = (v: xdr.ScVal): Any => scValToNative(v);

/** 8-byte little-endian Bytes of a raw 64-bit value. */
export function le(n: bigint): xdr.ScVal {
  const b = new Uint8Array(8);
  new DataView(b.buffer).setBigUint64(0, BigInt.asUintN(64, n), true);
  return bytes(b);
}

/** The raw 64-bit value of 8-byte little-endian Bytes. */
export function fromLe(v: xdr.ScVal, signed = false): bigint {
  const b: Uint8Array = (v as Any).bytes.value ?? (v as Any).bytes;
  const x = new DataView(b.buffer, b.byteOffset, 8).getBigUint64(0, true);
  return signed ? BigInt.asIntN(64, x) : x;
}

/** Raw XDR bytes of an ScVal (for byte-for-byte comparisons). */
export function xdrHex(v: xdr.ScVal): string {
  return Array.from(v.toXdr() as Uint8Array, (x) => x.toString(16).padStart(2, "0")).join("");
}
