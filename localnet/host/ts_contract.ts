/**
 * Running TypeScript contract modules: argument decoding through the spec, the `Env` a
 * function sees, and result encoding.
 *
 * @module
 */
import { xdr } from "@stellar/stellar-sdk";
import type { Env, Storage, TryCallResult, TypeDef } from "../../contracts/sdk.ts";
import type { Invocation } from "./host.ts";
import type { CallKind, Frame } from "./frame.ts";
import { HostErr, isRecoverable } from "./errors.ts";
import { CodecError } from "./codec.ts";
import {
  calleeExtendTtl,
  dataDel,
  dataExtendTtl,
  dataGet,
  dataPut,
  instanceDel,
  instanceGet,
  instanceSet,
} from "./contract_data.ts";
import { requireAuth } from "./account_auth.ts";
import { deployCode } from "./deploy.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const VOID = xdr.ScVal.scvVoid();

function sym(s: string): xdr.ScVal {
  return xdr.ScVal.scvSymbol(s);
}

/** Runs a TypeScript module function in `frame`. */
export function runModule(h: Invocation, frame: Frame, kind: CallKind): xdr.ScVal {
  const reg = frame.callee.reg!;
  const f = reg.codec.fns.get(frame.fn);
  const impl = reg.module.functions[frame.fn];
  if (!f || typeof impl !== "function") {
    throw h.err("WasmVm", "MissingValue", "trying to invoke non-existent contract function", [
      sym(frame.fn),
    ]);
  }
  if (frame.fn === "__constructor" && kind !== "constructor") {
    throw h.err(
      "Context",
      "InvalidAction",
      "__constructor can only be called when the contract is created",
    );
  }
  if (frame.fn === "__check_auth" && kind !== "check_auth") {
    throw h.err("Context", "InvalidAction", "__check_auth can only be called by the host");
  }
  if (frame.args.length !== f.inputs.length) {
    // A Wasm export called with the wrong number of parameters fails in the VM.
    throw h.err("WasmVm", "InvalidAction", "VM call failed: Func(MismatchingParameterLen)", [
      sym(frame.fn),
    ]);
  }
  const native: Record<string, unknown> = {};
  for (let i = 0; i < f.inputs.length; i++) {
    const inp = f.inputs[i];
    try {
      native[inp.name] = inp.conv.dec(frame.args[i]);
    } catch (e) {
      if (e instanceof CodecError) {
        // soroban-sdk's argument conversion traps (`unreachable`) on a type mismatch.
        h.log(`invalid argument ${inp.name} of ${frame.fn}: ${e.message}`);
        const he = h.err(
          "WasmVm",
          "InvalidAction",
          "VM call trapped: UnreachableCodeReached",
          [
            sym(frame.fn),
          ],
        );
        he.detail = `invalid argument ${inp.name}: ${e.message}`;
        throw he;
      }
      throw e;
    }
  }
  const out = impl(new FrameEnv(h, frame), native);
  if (out !== null && typeof out === "object" && typeof (out as Any).then === "function") {
    (out as Promise<unknown>).then(undefined, () => {});
    throw new Error(
      `contract function ${frame.fn} returned a Promise; contract functions must be synchronous`,
    );
  }
  if (frame.poison) throw frame.poison;
  if (!f.output) return VOID;
  try {
    return f.output.enc(out);
  } catch (e) {
    if (e instanceof CodecError) throw new Error(`return value of ${frame.fn}: ${e.message}`);
    throw e;
  }
}

/**
 * The local node's `Env` with contract deployment: what soroban-sdk's
 * `env.deployer().with_current_contract(salt).deploy_v2(wasm_hash, constructor_args)` does.
 * Every `Env` the node hands a TypeScript contract has it; a contract that may also run on
 * another `Env` (a unit test's fake) checks for it first.
 */
export interface DeployerEnv extends Env {
  /**
   * Creates a contract from uploaded code (`wasmHash`: a Wasm or a registered module's stub)
   * with the current contract as the deployer — authorized by the invoker rule, as on the real
   * host — runs its `__constructor` with `constructorArgs` if it has one and returns its id
   * (derived from this contract's address and `salt`, as on the real network).
   */
  deployV2(wasmHash: Uint8Array, salt: Uint8Array, constructorArgs?: xdr.ScVal[]): string;
}

/** The `Env` a contract function sees for one frame. */
export class FrameEnv implements DeployerEnv {
  private _storage?: Env["storage"];

  constructor(private readonly h: Invocation, private readonly f: Frame) {}

  get currentContract(): string {
    return this.f.contract;
  }

  get invoker(): string | undefined {
    return this.f.caller?.contract;
  }

  get ledger(): { readonly sequence: number; readonly timestamp: bigint } {
    return this.h.ledgerView;
  }

  get storage(): Env["storage"] {
    if (!this._storage) {
      const { h, f } = this;
      const data = (d: 0 | 1): Storage => ({
        get: (k) => h.guard(f, () => dataGet(h, f, k, d)),
        has: (k) => h.guard(f, () => dataGet(h, f, k, d) !== undefined),
        set: (k, v) => h.guard(f, () => dataPut(h, f, k, v, d)),
        remove: (k) => h.guard(f, () => dataDel(h, f, k, d)),
        extendTtl: (k, threshold, extendTo) =>
          h.guard(f, () => dataExtendTtl(h, f, k, d, threshold, extendTo)),
      });
      this._storage = Object.freeze({
        instance: {
          get: (k) => instanceGet(h, f, k),
          has: (k) => instanceGet(h, f, k) !== undefined,
          set: (k, v) => instanceSet(h, f, k, v),
          remove: (k) => instanceDel(h, f, k),
          extendTtl: (_k, threshold, extendTo) =>
            h.guard(f, () => calleeExtendTtl(h, f.callee, threshold, extendTo, true, true)),
        },
        persistent: data(1),
        temporary: data(0),
      });
    }
    return this._storage;
  }

  requireAuth(address: string): void {
    this.h.guard(this.f, () => requireAuth(this.h, this.f, address, this.f.args));
  }

  requireAuthForArgs(address: string, args: xdr.ScVal[]): void {
    this.h.guard(this.f, () => requireAuth(this.h, this.f, address, args));
  }

  call<R = unknown>(contract: string, fn: string, args?: unknown[] | Record<string, unknown>): R {
    return this.h.guard(this.f, () => this.h.crossCall(this.f, contract, fn, args, "call")) as R;
  }

  tryCall<R = unknown>(
    contract: string,
    fn: string,
    args?: unknown[] | Record<string, unknown>,
  ): TryCallResult<R> {
    try {
      return { ok: true, value: this.h.crossCall(this.f, contract, fn, args, "try") as R };
    } catch (e) {
      if (e instanceof HostErr && isRecoverable(e)) {
        return { ok: false, error: { type: e.type, code: e.code, message: e.detail ?? e.msg } };
      }
      if (e instanceof HostErr && !this.f.poison) this.f.poison = e;
      throw e;
    }
  }

  emit(topics: xdr.ScVal[], data: xdr.ScVal): void {
    this.h.emit(this.f, topics, data);
  }

  deployV2(wasmHash: Uint8Array, salt: Uint8Array, constructorArgs: xdr.ScVal[] = []): string {
    return this.h.guard(
      this.f,
      () => deployCode(this.h, this.f, this.f.contract, wasmHash, salt, constructorArgs, true),
    );
  }

  toScVal(value: unknown, type: TypeDef): xdr.ScVal {
    return this.f.callee.codec.conv(type).enc(value);
  }

  fromScVal<R = unknown>(value: xdr.ScVal, type: TypeDef): R {
    return this.f.callee.codec.conv(type).dec(value) as R;
  }
}
