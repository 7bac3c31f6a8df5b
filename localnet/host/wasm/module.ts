/**
 * Upload-time processing of a contract's Wasm: parsing, the real host's structural rules, and
 * metering instrumentation.
 *
 * Validation (rs-soroban-env `vm.rs` + its wasmi configuration): floating point (types and
 * instructions), saturating float-to-int, SIMD, multi-value, reference types, tail calls,
 * extended-const, threads and exceptions are refused, as are a start function, more than one
 * memory/table, non-function imports, imports that are not host functions of the node's
 * protocol, and a missing or newer `contractenvmetav0` interface version. Bulk memory, mutable
 * globals and sign extension are allowed.
 *
 * Metering: V8 counts nothing, so the module is rewritten once, at upload/compile time. A
 * mutable i64 global (exported as {@link FUEL_EXPORT}) holds the remaining budget; each
 * function entry is charged for its instructions and each `loop` header for the instructions
 * of its body, and when the budget goes below zero the module executes `unreachable`, which
 * the host reports as `Error(Budget, ExceededLimit)`.
 *
 * @module
 */
import { HOST_FUNCTIONS } from "./bindings/mod.ts";

/** Export name of the injected fuel global. */
export const FUEL_EXPORT = "__vigil_fuel";
/** Linear memory cap in 64 KiB pages (40 MiB, the order of the real host's memory budget). */
export const MAX_PAGES = 640;
/** CPU instructions charged per executed Wasm instruction (the real host's order of magnitude). */
export const INSN_COST = 4;

/** A module refused at upload, with the host error it maps to. */
export class WasmRefused extends Error {
  constructor(readonly code: "InvalidAction" | "InvalidInput", msg: string) {
    super(msg);
    this.name = "WasmRefused";
  }
}

/** What upload-time processing learned about a module. */
export interface ParsedModule {
  /** The instrumented module bytes (what gets compiled). */
  instrumented: Uint8Array;
  /** Host function imports: [module, name]. */
  imports: [string, string][];
  /** Exported function names → parameter count. */
  functions: Map<string, number>;
  /** Whether `memory` is exported. */
  hasMemory: boolean;
  /** Export names of every defined mutable global (reset when an instance is reused). */
  mutableGlobals: string[];
  /** Whether an instance may be reset and reused (no passive segments / table operations). */
  reusable: boolean;
  /** Interface version from contractenvmetav0. */
  protocol: number;
  preRelease: number;
}

class Reader {
  i = 0;
  constructor(readonly b: Uint8Array, start = 0, readonly end = b.length) {
    this.i = start;
  }
  byte(): number {
    if (this.i >= this.end) throw new WasmRefused("InvalidAction", "unexpected end of module");
    return this.b[this.i++];
  }
  u32(): number {
    let result = 0;
    let shift = 0;
    for (;;) {
      const b = this.byte();
      result += (b & 0x7f) * 2 ** shift;
      if ((b & 0x80) === 0) break;
      shift += 7;
      if (shift > 35) throw new WasmRefused("InvalidAction", "invalid LEB128");
    }
    return result;
  }
  /** Skips a signed LEB128 of up to `bits`. */
  sleb(): void {
    for (let n = 0;; n++) {
      const b = this.byte();
      if ((b & 0x80) === 0) return;
      if (n > 10) throw new WasmRefused("InvalidAction", "invalid LEB128");
    }
  }
  /** Reads a signed LEB128 (s33 block types). */
  s33(): number {
    let result = 0;
    let shift = 0;
    let b: number;
    do {
      b = this.byte();
      result += (b & 0x7f) * 2 ** shift;
      shift += 7;
    } while (b & 0x80);
    if (b & 0x40) result -= 2 ** shift;
    return result;
  }
  bytes(n: number): Uint8Array {
    if (this.i + n > this.end) throw new WasmRefused("InvalidAction", "unexpected end of module");
    const out = this.b.subarray(this.i, this.i + n);
    this.i += n;
    return out;
  }
  name(): string {
    return new TextDecoder().decode(this.bytes(this.u32()));
  }
}

function leb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n = Math.floor(n / 128);
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

function sleb64(n: bigint): number[] {
  const out: number[] = [];
  for (;;) {
    const b = Number(n & 0x7fn);
    n >>= 7n;
    if ((n === 0n && (b & 0x40) === 0) || (n === -1n && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

const refuse = (msg: string): never => {
  throw new WasmRefused("InvalidAction", msg);
};

function valType(t: number): void {
  if (t === 0x7f || t === 0x7e) return;
  if (t === 0x7d || t === 0x7c) refuse("floating point is not allowed");
  if (t === 0x7b) refuse("SIMD is not allowed");
  if (t === 0x70 || t === 0x6f) refuse("reference types are not allowed");
  refuse(`invalid value type 0x${t.toString(16)}`);
}

function blockType(r: Reader): void {
  const b = r.b[r.i];
  if (b === 0x40) {
    r.i++;
    return;
  }
  if (
    b === 0x7f || b === 0x7e || b === 0x7d || b === 0x7c || b === 0x7b || b === 0x70 || b === 0x6f
  ) {
    r.i++;
    valType(b);
    return;
  }
  r.s33();
  refuse("multi-value block types are not allowed");
}

/** Validates a constant expression (globals, segment offsets); no extended-const. */
function constExpr(r: Reader): void {
  const op = r.byte();
  if (op === 0x41 || op === 0x42) r.sleb();
  else if (op === 0x23) r.u32();
  else if (op === 0x43 || op === 0x44) refuse("floating point is not allowed");
  else if (op === 0xd0 || op === 0xd2) refuse("reference types are not allowed");
  else refuse("unsupported constant expression");
  const end = r.byte();
  if (end !== 0x0b) refuse("extended constant expressions are not allowed");
}

/** Set when a body uses passive-segment or table operations (instances are then not reused). */
let segmentOps = false;

interface Body {
  /** Offset (in the module) of the first instruction. */
  codeStart: number;
  /** End (exclusive) of the body. */
  end: number;
  /** Bytes of the locals declaration (copied as is). */
  localsStart: number;
  /** Instruction count of the whole function. */
  count: number;
  /** Loops: offset just after the loop's block type, and its body's instruction count. */
  loops: { at: number; count: number }[];
}

/** Decodes and validates one function body; records the metering points. */
function scanBody(r: Reader, end: number): Body {
  const localsStart = r.i;
  const groups = r.u32();
  let locals = 0;
  for (let g = 0; g < groups; g++) {
    locals += r.u32();
    valType(r.byte());
  }
  if (locals > 50_000) refuse("too many locals");
  const codeStart = r.i;
  const loops: { at: number; count: number }[] = [];
  // Block stack: for loops the index into `loops` and the count at entry; -1 otherwise.
  const stack: { loop: number; start: number }[] = [];
  let count = 0;
  let depth = 1;
  while (r.i < end) {
    const op = r.byte();
    count++;
    switch (op) {
      case 0x00:
      case 0x01:
      case 0x0f:
      case 0x1a:
      case 0x1b:
        break;
      case 0x02:
      case 0x04:
        blockType(r);
        stack.push({ loop: -1, start: count });
        depth++;
        break;
      case 0x03:
        blockType(r);
        loops.push({ at: r.i, count: 0 });
        stack.push({ loop: loops.length - 1, start: count });
        depth++;
        break;
      case 0x05:
        break;
      case 0x0b: {
        depth--;
        const top = stack.pop();
        if (top && top.loop >= 0) loops[top.loop].count = count - top.start + 1;
        if (depth === 0 && r.i !== end) refuse("function body continues after its end");
        break;
      }
      case 0x0c:
      case 0x0d:
        r.u32();
        break;
      case 0x0e: {
        const n = r.u32();
        for (let i = 0; i <= n; i++) r.u32();
        break;
      }
      case 0x10:
        r.u32();
        break;
      case 0x11:
        r.u32();
        if (r.u32() !== 0) refuse("reference types are not allowed (call_indirect table)");
        break;
      case 0x12:
      case 0x13:
        refuse("tail calls are not allowed");
        break;
      case 0x1c:
      case 0x25:
      case 0x26:
      case 0xd0:
      case 0xd1:
      case 0xd2:
        refuse("reference types are not allowed");
        break;
      case 0x20:
      case 0x21:
      case 0x22:
      case 0x23:
      case 0x24:
        r.u32();
        break;
      case 0x3f:
      case 0x40:
        if (r.byte() !== 0) refuse("multi-memory is not allowed");
        break;
      case 0x41:
      case 0x42:
        r.sleb();
        break;
      case 0x43:
      case 0x44:
        refuse("floating point is not allowed");
        break;
      case 0xfc: {
        const sub = r.u32();
        if (sub <= 7) refuse("saturating float-to-int conversions are not allowed");
        if (sub === 8 || sub === 9 || sub >= 12) segmentOps = true;
        if (sub === 8) {
          r.u32();
          if (r.byte() !== 0) refuse("multi-memory is not allowed");
        } else if (sub === 9) r.u32();
        else if (sub === 10) {
          if (r.byte() !== 0 || r.byte() !== 0) refuse("multi-memory is not allowed");
        } else if (sub === 11) {
          if (r.byte() !== 0) refuse("multi-memory is not allowed");
        } else if (sub === 12) {
          r.u32();
          r.u32();
        } else if (sub === 13) r.u32();
        else if (sub === 14) {
          r.u32();
          r.u32();
        } else refuse("reference types are not allowed");
        break;
      }
      case 0xfd:
        refuse("SIMD is not allowed");
        break;
      case 0xfe:
        refuse("threads are not allowed");
        break;
      default:
        if (op >= 0x28 && op <= 0x3e) {
          if (op === 0x2a || op === 0x2b || op === 0x38 || op === 0x39) {
            refuse("floating point is not allowed");
          }
          r.u32();
          r.u32();
        } else if (op >= 0x45 && op <= 0x5a) {
          // integer comparisons
        } else if (op >= 0x67 && op <= 0x8a) {
          // integer arithmetic
        } else if (op === 0xa7 || op === 0xac || op === 0xad) {
          // wrap / extend
        } else if (op >= 0xc0 && op <= 0xc4) {
          // sign extension
        } else if ((op >= 0x5b && op <= 0x66) || (op >= 0x8b && op <= 0xbf)) {
          refuse("floating point is not allowed");
        } else if (op >= 0x06 && op <= 0x09) {
          refuse("exceptions are not allowed");
        } else {
          refuse(`unknown opcode 0x${op.toString(16)}`);
        }
    }
  }
  if (depth !== 0) refuse("unterminated function body");
  return { codeStart, end, localsStart, count, loops };
}

function meter(fuel: number, cost: number): number[] {
  const g = leb(fuel);
  return [
    0x23,
    ...g,
    0x42,
    ...sleb64(BigInt(cost * INSN_COST)),
    0x7d, // i64.sub
    0x24,
    ...g,
    0x23,
    ...g,
    0x42,
    0x00,
    0x53, // i64.lt_s
    0x04,
    0x40,
    0x00, // unreachable
    0x0b,
  ];
}

/** Reads the protocol/pre-release of a contractenvmetav0 payload (first interface version). */
function envMeta(payload: Uint8Array): [number, number] | null {
  const dv = new DataView(payload.buffer, payload.byteOffset, payload.byteLength);
  // Entries are SCEnvMetaEntry XDR: kind 0 = interface version {protocol, preRelease}.
  if (payload.length < 12 || dv.getUint32(0) !== 0) return null;
  return [dv.getUint32(4), dv.getUint32(8)];
}

/**
 * Parses and validates a contract module for a node at `protocol`, and returns the metered
 * module. Throws {@link WasmRefused}.
 */
export function processModule(wasm: Uint8Array, protocol: number): ParsedModule {
  if (
    wasm.length < 8 || wasm[0] !== 0 || wasm[1] !== 0x61 || wasm[2] !== 0x73 ||
    wasm[3] !== 0x6d
  ) {
    refuse("not a Wasm module");
  }
  if (wasm[4] !== 1 || wasm[5] !== 0 || wasm[6] !== 0 || wasm[7] !== 0) {
    refuse("unsupported Wasm version");
  }
  const r = new Reader(wasm, 8);
  const sections: { id: number; start: number; end: number; headerStart: number }[] = [];
  const types: { params: number; results: number; allI64: boolean }[] = [];
  const imports: [string, string][] = [];
  let unknownImport: WasmRefused | undefined;
  const funcTypes: number[] = [];
  let importedFuncs = 0;
  // Non-function imports are refused, so no imported globals shift the global indices.
  const importedGlobals = 0;
  let definedGlobals = 0;
  let memories = 0;
  let tables = 0;
  const exports = new Map<string, number>();
  let hasMemory = false;
  let meta: [number, number] | null = null;
  const bodies: Body[] = [];
  const mutable: number[] = [];
  let memMin = -1;
  let memMax = MAX_PAGES;
  segmentOps = false;
  let lastId = 0;
  while (r.i < wasm.length) {
    const headerStart = r.i;
    const id = r.byte();
    const size = r.u32();
    const start = r.i;
    const end = start + size;
    if (end > wasm.length) refuse("truncated section");
    sections.push({ id, start, end, headerStart });
    if (id !== 0) {
      const order = id === 12 ? 9.5 : id;
      if (order <= lastId) refuse("sections out of order");
      lastId = order;
    }
    const s = new Reader(wasm, start, end);
    switch (id) {
      case 0: {
        const name = s.name();
        if (name === "contractenvmetav0" && meta === null) meta = envMeta(wasm.subarray(s.i, end));
        break;
      }
      case 1: {
        const n = s.u32();
        for (let i = 0; i < n; i++) {
          if (s.byte() !== 0x60) refuse("invalid function type");
          const np = s.u32();
          let allI64 = true;
          for (let j = 0; j < np; j++) {
            const t = s.byte();
            valType(t);
            if (t !== 0x7e) allI64 = false;
          }
          const nr = s.u32();
          if (nr > 1) refuse("multi-value is not allowed");
          for (let j = 0; j < nr; j++) {
            const t = s.byte();
            valType(t);
            if (t !== 0x7e) allI64 = false;
          }
          types.push({ params: np, results: nr, allI64 });
        }
        break;
      }
      case 2: {
        const n = s.u32();
        for (let i = 0; i < n; i++) {
          const mod = s.name();
          const name = s.name();
          const kind = s.byte();
          if (kind !== 0) {
            throw new WasmRefused("InvalidAction", `import ${mod}.${name} is not a function`);
          }
          const ti = s.u32();
          const t = types[ti];
          const hf = HOST_FUNCTIONS.get(`${mod}.${name}`);
          if (!hf || hf.minProtocol > protocol) {
            // Reported after the interface version: the real host checks `contractenvmetav0`
            // when it parses the module and resolves imports only when it links it.
            unknownImport ??= new WasmRefused(
              "InvalidAction",
              `unknown host function import ${mod}.${name} at protocol ${protocol}`,
            );
            imports.push([mod, name]);
            importedFuncs++;
            continue;
          }
          if (!t || !t.allI64 || t.results !== 1 || t.params !== hf.arity) {
            throw new WasmRefused(
              "InvalidAction",
              `host function import ${mod}.${name} has the wrong signature`,
            );
          }
          imports.push([mod, name]);
          importedFuncs++;
        }
        break;
      }
      case 3: {
        const n = s.u32();
        for (let i = 0; i < n; i++) funcTypes.push(s.u32());
        break;
      }
      case 4: {
        const n = s.u32();
        tables += n;
        if (tables > 1) refuse("reference types are not allowed (more than one table)");
        for (let i = 0; i < n; i++) {
          const rt = s.byte();
          if (rt !== 0x70) refuse("reference types are not allowed");
          const flags = s.byte();
          s.u32();
          if (flags & 1) s.u32();
        }
        break;
      }
      case 5: {
        const n = s.u32();
        memories += n;
        if (memories > 1) refuse("multi-memory is not allowed");
        for (let i = 0; i < n; i++) {
          const flags = s.byte();
          if (flags > 1) refuse("shared or 64-bit memories are not allowed");
          memMin = s.u32();
          if (memMin > MAX_PAGES) refuse(`initial memory above ${MAX_PAGES} pages`);
          if (flags & 1) memMax = Math.min(s.u32(), MAX_PAGES);
        }
        break;
      }
      case 6: {
        const n = s.u32();
        for (let i = 0; i < n; i++) {
          valType(s.byte());
          if (s.byte() === 1) mutable.push(importedGlobals + definedGlobals + i);
          constExpr(s);
        }
        definedGlobals += n;
        break;
      }
      case 7: {
        const n = s.u32();
        for (let i = 0; i < n; i++) {
          const name = s.name();
          const kind = s.byte();
          const idx = s.u32();
          if (kind === 0) {
            const defined = idx - importedFuncs;
            const ti = defined >= 0 ? funcTypes[defined] : undefined;
            const t = ti !== undefined ? types[ti] : undefined;
            if (t) exports.set(name, t.allI64 && t.results <= 1 ? t.params : -1);
          } else if (kind === 2 && name === "memory") hasMemory = true;
        }
        break;
      }
      case 8:
        throw new WasmRefused("InvalidInput", "module contains a start function");
      case 9: {
        const n = s.u32();
        for (let i = 0; i < n; i++) {
          const flags = s.u32();
          if (flags > 3) refuse("reference types are not allowed (element expressions)");
          if (flags === 0 || flags === 2) {
            if (flags === 2 && s.u32() !== 0) refuse("reference types are not allowed");
            constExpr(s);
          }
          if (flags !== 0 && s.byte() !== 0) refuse("reference types are not allowed");
          const m = s.u32();
          for (let j = 0; j < m; j++) s.u32();
        }
        break;
      }
      case 10: {
        const n = s.u32();
        if (n !== funcTypes.length) refuse("function and code section sizes differ");
        for (let i = 0; i < n; i++) {
          const size = s.u32();
          const bend = s.i + size;
          bodies.push(scanBody(s, bend));
          s.i = bend;
        }
        break;
      }
      case 11: {
        const n = s.u32();
        for (let i = 0; i < n; i++) {
          const flags = s.u32();
          if (flags === 0) constExpr(s);
          else if (flags === 2) {
            if (s.u32() !== 0) refuse("multi-memory is not allowed");
            constExpr(s);
          } else if (flags !== 1) refuse("invalid data segment");
          // Read the length first: `s.i += s.u32()` would add it to the offset from before the
          // length's own LEB bytes.
          const len = s.u32();
          s.i += len;
        }
        break;
      }
      case 12:
        break;
      default:
        refuse(`unknown section ${id}`);
    }
    r.i = end;
  }
  if (funcTypes.length !== bodies.length) refuse("function and code section sizes differ");
  if (meta === null) {
    throw new WasmRefused("InvalidInput", "contract missing metadata section (contractenvmetav0)");
  }
  if (meta[0] > protocol) {
    throw new WasmRefused(
      "InvalidInput",
      `contract protocol number ${meta[0]} is newer than host protocol ${protocol}`,
    );
  }
  if (meta[1] !== 0) {
    throw new WasmRefused(
      "InvalidInput",
      `contract pre-release number ${meta[1]} for protocol ${meta[0]} is not 0`,
    );
  }
  if (unknownImport) throw unknownImport;
  // Exports that are not Val functions (or take more than 32 Vals) are not refused here: as
  // on the real host, calling one fails (see vm.ts).

  // --- Instrumentation ------------------------------------------------------------------
  const fuel = importedGlobals + definedGlobals;
  const out: number[][] = [];
  const push = (id: number, payload: number[] | Uint8Array) => {
    out.push([id, ...leb(payload.length)], Array.from(payload));
  };
  const fuelGlobal = [0x7e, 0x01, 0x42, 0x00, 0x0b];
  let globalsDone = false;
  let exportsDone = false;
  const emitGlobals = (existing?: { start: number; end: number }) => {
    if (existing) {
      const s = new Reader(wasm, existing.start, existing.end);
      const n = s.u32();
      push(6, [...leb(n + 1), ...wasm.subarray(s.i, existing.end), ...fuelGlobal]);
    } else push(6, [...leb(1), ...fuelGlobal]);
    globalsDone = true;
  };
  const globalExport = (name: string, idx: number) => {
    const nb = new TextEncoder().encode(name);
    return [...leb(nb.length), ...nb, 0x03, ...leb(idx)];
  };
  const mutableGlobals = mutable.map((g) => `${FUEL_EXPORT}_g${g}`);
  const extra = () => [
    ...globalExport(FUEL_EXPORT, fuel),
    ...mutable.flatMap((g, i) => globalExport(mutableGlobals[i], g)),
  ];
  const extraCount = 1 + mutable.length;
  const emitExports = (existing?: { start: number; end: number }) => {
    if (existing) {
      const s = new Reader(wasm, existing.start, existing.end);
      const n = s.u32();
      push(7, [...leb(n + extraCount), ...wasm.subarray(s.i, existing.end), ...extra()]);
    } else push(7, [...leb(extraCount), ...extra()]);
    exportsDone = true;
  };
  for (const sec of sections) {
    const id = sec.id;
    if (id !== 0 && id > 6 && id !== 12 && !globalsDone) emitGlobals();
    if (id !== 0 && id > 7 && id !== 12 && !exportsDone) emitExports();
    if (id === 6) emitGlobals(sec);
    else if (id === 7) emitExports(sec);
    else if (id === 5 && memMin >= 0) {
      // Cap growth: memory.grow past the cap returns -1 instead of exhausting the node.
      push(5, [1, 0x01, ...leb(memMin), ...leb(Math.max(memMin, memMax))]);
    } else if (id === 10) {
      const payload: number[] = [...leb(bodies.length)];
      for (const b of bodies) {
        const f: number[] = [...wasm.subarray(b.localsStart, b.codeStart)];
        f.push(...meter(fuel, b.count));
        let pos = b.codeStart;
        for (const l of b.loops) {
          f.push(...wasm.subarray(pos, l.at));
          f.push(...meter(fuel, l.count));
          pos = l.at;
        }
        f.push(...wasm.subarray(pos, b.end));
        payload.push(...leb(f.length), ...f);
      }
      push(10, payload);
    } else out.push(Array.from(wasm.subarray(sec.headerStart, sec.end)));
  }
  if (!globalsDone) emitGlobals();
  if (!exportsDone) emitExports();
  const total = 8 + out.reduce((s, p) => s + p.length, 0);
  const instrumented = new Uint8Array(total);
  instrumented.set(wasm.subarray(0, 8));
  let o = 8;
  for (const p of out) {
    instrumented.set(p, o);
    o += p.length;
  }
  const functions = new Map<string, number>();
  for (const [name, n] of exports) functions.set(name, n);
  return {
    instrumented,
    imports,
    functions,
    hasMemory,
    mutableGlobals,
    reusable: !segmentOps,
    protocol: meta[0],
    preRelease: meta[1],
  };
}
