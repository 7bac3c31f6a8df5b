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
import { toHex } from "../../util.ts";
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
  /** Idle instances, reset to their initial state before reuse. */
  pool: PooledInstance[];
}

/**
 * An instance whose host functions dispatch to the current frame's context. Creating a
 * WebAssembly instance (and its linear memory) costs far more than running a small contract
 * call, so idle instances are kept and, before reuse, restored exactly to the state of a
 * fresh instantiation: the initial memory image and every mutable global.
 */
interface PooledInstance {
  instance: WebAssembly.Instance;
  slot: { ctx: VmCtx | null };
  mem?: WebAssembly.Memory;
  fuel: WebAssembly.Global;
  memImage?: Uint8Array;
  globals: [WebAssembly.Global, bigint | number][];
  /** Needs a reset before the next use. */
  used: boolean;
}

const POOL_MAX = 4;

function instantiate(h: Invocation, c: CompiledContract): PooledInstance {
  const slot: { ctx: VmCtx | null } = { ctx: null };
  const imports: Record<string, Record<string, (...a: bigint[]) => bigint>> = {};
  for (const [mod, name] of c.parsed.imports) {
    const f = HOST_FUNCTIONS.get(`${mod}.${name}`)!;
    const fn = f.fn;
    (imports[mod] ??= {})[name] = (...args: bigint[]): bigint => {
      const ctx = slot.ctx!;
      try {
        ctx.charge(HOST_CALL_COST);
        for (let i = 0; i < args.length; i++) args[i] = u64(args[i]);
        return i64(fn(ctx, ...args));
      } catch (e) {
        throw hostFnError(ctx.h, e, f.name);
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
  const mem = exp.memory instanceof WebAssembly.Memory ? exp.memory : undefined;
  const globals: [WebAssembly.Global, bigint | number][] = c.parsed.mutableGlobals.map((n) => {
    const g = exp[n] as WebAssembly.Global;
    return [g, g.value];
  });
  return {
    instance,
    slot,
    mem,
    fuel: exp[FUEL_EXPORT] as WebAssembly.Global,
    memImage: c.parsed.reusable && mem ? new Uint8Array(mem.buffer).slice() : undefined,
    globals,
    used: false,
  };
}

/** An instance for one frame: a reset idle one, or a new one. */
function acquire(h: Invocation, c: CompiledContract): PooledInstance {
  for (;;) {
    const p = c.pool.pop();
    if (!p) return instantiate(h, c);
    if (!p.used) return p;
    if (p.mem && p.memImage) {
      const buf = new Uint8Array(p.mem.buffer);
      if (buf.length !== p.memImage.length) continue; // grew: cannot shrink, drop it
      buf.set(p.memImage);
    }
    for (const [g, v] of p.globals) g.value = v;
    p.used = false;
    return p;
  }
}

function release(c: CompiledContract, p: PooledInstance): void {
  p.slot.ctx = null;
  p.used = true;
  if (c.parsed.reusable && (p.memImage || !p.mem) && c.pool.length < POOL_MAX) c.pool.push(p);
}

const cache = new Map<string, CompiledContract>();

/** Validates a module for upload; throws {@link WasmRefused}. */
export function validateWasm(wasm: Uint8Array, protocol: number): ParsedModule {
  // Compiling (cached by hash) completes the validation: V8 type-checks every function body,
  // as wasmi does at upload on the real host.
  return compileContract(wasm, protocol).parsed;
}

function compileModule(bytes: Uint8Array): WebAssembly.Module {
  try {
    return new WebAssembly.Module(bytes as BufferSource);
  } catch (e) {
    throw new WasmRefused("InvalidAction", `invalid module: ${(e as Error).message}`);
  }
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
      module: compileModule(parsed.instrumented),
      parsed,
      codec,
      pool: [],
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
    let seed: Uint8Array | undefined;
    h.vm = {
      store: new ObjectStore(),
      // Derived on first PRNG use (encoding the host function is not free).
      get baseSeed(): Uint8Array {
        seed ??= sha256(
          new TextEncoder().encode(
            `${h.req.ledger.sequence}:${h.req.source}:${h.req.hostFunction.toXdr("base64")}`,
          ),
        );
        return seed;
      },
      subSeeds: 0,
    };
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
  return h.err(
    "Context",
    "InternalError",
    `host function ${fnName} failed: ${(e as Error)?.message ?? e}`,
  );
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
  if (nParams < 0 || nParams > 32) {
    throw h.err("WasmVm", "InvalidAction", "VM call failed: Func(FuncTypeMismatch)", [
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
  const inst = acquire(h, c);
  inst.slot.ctx = ctx;
  try {
    return callInstance(h, frame, ctx, inst, fnName);
  } finally {
    release(c, inst);
  }
}

function callInstance(
  h: Invocation,
  frame: Frame,
  ctx: VmCtx,
  inst: PooledInstance,
  fnName: string,
): xdr.ScVal {
  const exp = inst.instance.exports as Record<string, Any>;
  ctx.mem = inst.mem;
  ctx.fuel = inst.fuel;
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
