/**
 * Loads the real Soroban host (`libvigil_real_host.so`, built by `npm ci` from this folder's
 * Rust crate) with `Deno.dlopen`, and moves JSON requests/responses across its C ABI.
 *
 * The library is opened on first use, so importing this module never fails: only a call does,
 * with {@link MISSING_LIBRARY_MESSAGE} when the library was not built.
 *
 * @module
 */

/** What a caller sees when the shared library is absent. */
export const MISSING_LIBRARY_MESSAGE =
  "the real Soroban host is not built: run `npm ci` (needs cargo; install Rust from https://rustup.rs)";

/** A failure of the wrapper itself (bad request, missing library, panic), not of a contract. */
export class RealHostError extends Error {
  override name = "RealHostError";
}

const SYMBOLS = {
  vh_invoke: { parameters: ["buffer", "usize", "buffer"], result: "pointer" },
  vh_simulate: { parameters: ["buffer", "usize", "function", "buffer"], result: "pointer" },
  vh_default_cost_params: { parameters: ["buffer"], result: "pointer" },
  vh_resource_fee: { parameters: ["buffer", "usize", "buffer"], result: "pointer" },
  vh_free: { parameters: ["pointer", "usize"], result: "void" },
} as const;

type Lib = Deno.DynamicLibrary<typeof SYMBOLS>;

/** Path of the built library (`VIGIL_REAL_HOST_LIB` overrides it). */
export function libraryPath(): string {
  const override = Deno.env.get("VIGIL_REAL_HOST_LIB");
  if (override) return override;
  const name = Deno.build.os === "darwin"
    ? "libvigil_real_host.dylib"
    : Deno.build.os === "windows"
    ? "vigil_real_host.dll"
    : "libvigil_real_host.so";
  return new URL(`./target/release/${name}`, import.meta.url).pathname;
}

let lib: Lib | undefined;

/** Whether the library has been built (without loading it). */
export function isBuilt(): boolean {
  try {
    return Deno.statSync(libraryPath()).isFile;
  } catch {
    return false;
  }
}

function open(): Lib {
  if (lib) return lib;
  const path = libraryPath();
  if (!isBuilt()) throw new RealHostError(`${MISSING_LIBRARY_MESSAGE} (looked for ${path})`);
  lib = Deno.dlopen(path, SYMBOLS);
  return lib;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();
const outLen = new BigUint64Array(1);

/** Reads and frees a response buffer, and parses its JSON; `fatal` becomes a thrown error. */
function take(l: Lib, ptr: Deno.PointerValue): Record<string, unknown> {
  if (ptr === null) throw new RealHostError("the real host returned no response");
  const len = Number(outLen[0]);
  const text = decoder.decode(new Uint8Array(Deno.UnsafePointerView.getArrayBuffer(ptr, len)));
  l.symbols.vh_free(ptr, BigInt(len));
  const value = JSON.parse(text) as Record<string, unknown>;
  if (typeof value.fatal === "string") throw new RealHostError(value.fatal);
  return value;
}

/** Calls `vh_invoke` with one JSON request. */
export function callInvoke(request: unknown): Record<string, unknown> {
  const l = open();
  const body = encoder.encode(JSON.stringify(request));
  return take(l, l.symbols.vh_invoke(body, BigInt(body.length), outLen));
}

/** Calls `vh_resource_fee` with one JSON request. */
export function callResourceFee(request: unknown): Record<string, unknown> {
  const l = open();
  const body = encoder.encode(JSON.stringify(request));
  return take(l, l.symbols.vh_resource_fee(body, BigInt(body.length), outLen));
}

/** Answers a ledger read during simulation: the entry's XDR and live-until ledger, or none. */
export type RawSnapshot = (
  key: Uint8Array,
) => { entry: Uint8Array; liveUntil?: number } | undefined;

// One callback for the process: the current simulation's reader is swapped in around each call
// (the library calls back synchronously on this thread, during `vh_simulate`).
let currentSnapshot: RawSnapshot | undefined;
let snapshotError: unknown;
let reply: Uint8Array = new Uint8Array(0);
let callback:
  | Deno.UnsafeCallback<{ readonly parameters: ["pointer", "usize"]; readonly result: "pointer" }>
  | undefined;

function snapshotCallback() {
  callback ??= new Deno.UnsafeCallback(
    { parameters: ["pointer", "usize"], result: "pointer" } as const,
    (keyPtr, keyLen) => {
      try {
        if (!currentSnapshot || keyPtr === null) return null;
        const key = new Uint8Array(
          Deno.UnsafePointerView.getArrayBuffer(keyPtr, Number(keyLen)).slice(0),
        );
        const found = currentSnapshot(key);
        if (!found) return null;
        // Layout read by the library: [u32 len][u32 live_until][u8 has_live_until][entry].
        reply = new Uint8Array(9 + found.entry.length);
        const view = new DataView(reply.buffer);
        view.setUint32(0, found.entry.length, true);
        view.setUint32(4, found.liveUntil ?? 0, true);
        reply[8] = found.liveUntil === undefined ? 0 : 1;
        reply.set(found.entry, 9);
        return Deno.UnsafePointer.of(reply);
      } catch (e) {
        // An exception cannot cross into Rust: remember it, answer "no entry", rethrow after.
        snapshotError ??= e;
        return null;
      }
    },
  );
  return callback.pointer;
}

/** Calls `vh_simulate` with one JSON request; ledger reads go to `snapshot`. */
export function callSimulate(request: unknown, snapshot: RawSnapshot): Record<string, unknown> {
  const l = open();
  const body = encoder.encode(JSON.stringify(request));
  const fn = snapshotCallback();
  currentSnapshot = snapshot;
  snapshotError = undefined;
  try {
    const out = take(l, l.symbols.vh_simulate(body, BigInt(body.length), fn, outLen));
    if (snapshotError !== undefined) throw snapshotError;
    return out;
  } finally {
    currentSnapshot = undefined;
  }
}

/** Calls `vh_default_cost_params`: the host's built-in cost model (base64 `ContractCostParams`). */
export function callDefaultCostParams(): { cpu: string; mem: string } {
  const l = open();
  return take(l, l.symbols.vh_default_cost_params(outLen)) as { cpu: string; mem: string };
}

/**
 * Unloads the library and its callback (tests close them; the next call reopens). The node
 * keeps them for the life of the process.
 */
export function closeRealHost(): void {
  callback?.close();
  callback = undefined;
  lib?.close();
  lib = undefined;
}
