/**
 * Running Wasm contracts: compiled modules cached by code hash, one instance per call frame
 * (as the real host instantiates a VM per frame), host functions bound from the module's
 * imports, fuel metering, and the real host's error mapping.
 *
 * @module
 */
import { xdr } from "@stellar/stellar-sdk";
import type { Invocation } from "../host.ts";
import type { CallKind, Frame } from "../frame.ts";
import { HostErr } from "../errors.ts";
import { SpecCodec } from "../codec.ts";
import { specFromWasm } from "../wasm.ts";
import { sha256 } from "../auth.ts";
import { toHex } from "../registry.ts";
import { HOST_FUNCTIONS } from "./bindings/mod.ts";
import { VmCtx, type VmShared } from "./ctx.ts";
import { FUEL_EXPORT, INSN_COST, type ParsedModule, processModule, WasmRefused } from "./module.ts";
import { errorOfVal, FrameHandles, ObjectStore, ValError } from "./objects.ts";
import { i64, Tag, tagOf, u64 } from "./val.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

/** A compiled contract: the metered module and what was learned at upload. */
export interface CompiledContract {
  hashHex: string;
  module: WebAssembly.Module;
  parsed: ParsedModule;
  /** Codec of its contractspecv0 (for TypeScript callers passing native values). */
  codec: SpecCodec;
}

const cache = new Map<string, CompiledContract>();

/** Validates a module for upload; throws {@link WasmRefused}. */
export function validateWasm(wasm: Uint8Array, protocol: number): ParsedModule {
  return processModule(wasm, protocol);
}

/** The compiled contract of some code (cached by sha256). */
export function compileContract(
  wasm: Uint8Array,
  protocol: number,
  hashHex = toHex(sha256(wasm)),
): CompiledContract {
  let c = cache.get(hashHex);
  if (c === undefined) {
    const parsed = processModule(wasm, protocol);
    let codec: SpecCodec;
    try {
      codec = new SpecCodec(specFromWasm(wasm));
    } catch {
      codec = new SpecCodec([]);
    }
    c = {
      hashHex,
      module: new WebAssembly.Module(parsed.instrumented as BufferSource),
      parsed,
      codec,
    };
    if (cache.size > 500) cache.clear();
    cache.set(hashHex, c);
  }
  return c;
}

export { WasmRefused };

/** The per-invocation Wasm state. */
export function vmShared(h: Invocation): VmShared {
  if (!h.vm) {
    const seedSrc = new TextEncoder().encode(
      `${h.req.ledger.sequence}:${h.req.source}:${h.req.hostFunction.toXdr("base64")}`,
    );
    h.vm = { store: new ObjectStore(), baseSeed: sha256(seedSrc), subSeeds: 0 };
  }
  return h.vm;
}

const SYM_CTOR = "__constructor";

/** Converts an error thrown inside a host function into a HostErr (recording diagnostics). */
function hostFnError(h: Invocation, e: unknown, fnName: string): unknown {
  if (e instanceof HostErr) return e;
  if (e instanceof ValError) {
    if (e.type === "Contract") return h.err("Contract", Number(e.code), e.message);
    return h.err(e.type, e.code, `${e.message} (host function ${fnName})`);
  }
  // A host bug, not a contract failure.
  return h.err("Context", "InternalError", `host function ${fnName} failed: ${(e as Error)?.message ?? e}`);
}

/** Runs `frame.fn` of a Wasm contract. */
export function runWasm(
  h: Invocation,
  frame: Frame,
  kind: CallKind,
  c: CompiledContract,
): xdr.ScVal {
  const fnName = frame.fn;
  const nParams = c.parsed.functions.get(fnName);
  if (fnName === SYM_CTOR && kind !== "constructor") {
    throw h.err(
      "Context",
      "InvalidAction",
      "__constructor can only be called when the contract is created",
    );
  }
  if (fnName === "__check_auth" && kind !== "check_auth") {
    throw h.err("Context", "InvalidAction", "__check_auth can only be called by the host");
  }
  if (nParams === undefined || fnName.startsWith(FUEL_EXPORT)) {
    throw h.err("WasmVm", "MissingValue", "trying to invoke non-existent contract function", [
      xdr.ScVal.scvSymbol(fnName),
    ]);
  }
  if (nParams !== frame.args.length) {
    throw h.err("WasmVm", "InvalidAction", "VM call failed: Func(MismatchingParameterLen)", [
      xdr.ScVal.scvSymbol(fnName),
    ]);
  }
  const shared = vmShared(h);
  const ctx = new VmCtx(h, frame, shared, new FrameHandles(shared.store));
  const imports: Record<string, Record<string, (...a: bigint[]) => bigint>> = {};
  for (const [mod, name] of c.parsed.imports) {
    const f = HOST_FUNCTIONS.get(`${mod}.${name}`)!;
    (imports[mod] ??= {})[name] = (...args: bigint[]): bigint => {
      try {
        ctx.charge(HOST_CALL_COST);
        for (let i = 0; i < args.length; i++) args[i] = u64(args[i]);
        return i64(f.fn(ctx, ...args));
      } catch (e) {
        throw hostFnError(h, e, f.name);
      }
    };
  }
  let instance: WebAssembly.Instance;
  try {
    instance = new WebAssembly.Instance(c.module, imports as Any);
  } catch (e) {
    throw h.err("WasmVm", "InvalidAction", `VM instantiation failed: ${(e as Error).message}`);
  }
  const exp = instance.exports as Record<string, Any>;
  ctx.mem = exp.memory instanceof WebAssembly.Memory ? exp.memory : undefined;
  ctx.fuel = exp[FUEL_EXPORT] as WebAssembly.Global;
  const start = BigInt(h.fuelLeft());
  ctx.fuel.value = start;
  ctx.fuelMark = start;
  let args: bigint[];
  try {
    args = frame.args.map((a) => i64(ctx.fromScVal(a)));
  } catch (e) {
    throw hostFnError(h, e, "argument conversion");
  }
  let ret: bigint;
  try {
    ret = u64(exp[fnName](...args) as bigint);
  } catch (e) {
    if (e instanceof HostErr) throw e;
    if ((ctx.fuel.value as bigint) < 0n) {
      throw h.err("Budget", "ExceededLimit", "CPU instruction limit exceeded");
    }
    const msg = e instanceof Error ? e.message : String(e);
    throw h.err("WasmVm", "InvalidAction", `VM call trapped: ${msg}`, [
      xdr.ScVal.scvSymbol(fnName),
    ]);
  } finally {
    syncFuel(h, ctx);
  }
  if (tagOf(ret) === Tag.Error) {
    const { type, code } = errorOfVal(ret);
    if (type === "Contract") {
      const he = h.err("Contract", code, "escalating Ok(ScErrorType::Contract) frame-exit to Err");
      he.detail = frame.callee.codec.errors.get(Number(code));
      throw he;
    }
    throw h.err(type, code, "escalating error returned by a contract function to Err");
  }
  try {
    return ctx.scval(ret);
  } catch (e) {
    throw hostFnError(h, e, "return value conversion");
  }
}

/** CPU instructions charged for entering a host function. */
const HOST_CALL_COST = 200;

/** Moves the fuel a frame consumed into the invocation's counter. */
export function syncFuel(h: Invocation, ctx: VmCtx): void {
  const now = ctx.fuel.value as bigint;
  const used = ctx.fuelMark - now;
  if (used > 0n) h.wasmInstructions += Number(used);
  ctx.fuelMark = now;
}

/** After a nested call returned, reloads the frame's fuel from the invocation's budget. */
export function reloadFuel(h: Invocation, ctx: VmCtx): void {
  const left = BigInt(h.fuelLeft());
  ctx.fuel.value = left;
  ctx.fuelMark = left;
}

export { INSN_COST };
