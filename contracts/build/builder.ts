/**
 * Builds Soroban contracts written with Vigil's AssemblyScript SDK (`contracts/sdk/`) from their
 * sources (`<folder>/assembly/index.ts`, see {@link ContractSource}) into Wasm: Vigil's own
 * contracts, the local node's world contracts and the test fixtures (`tools/build_contracts.ts`
 * writes all three tables). A dev tool: nothing imports it at run time.

 *
 * 1. `asc` (stub runtime, no floats, `abort` compiled to `unreachable`, `--exportStart`);
 * 2. the start function is evaluated away: it may only store constants into globals (the stub
 *    allocator's heap offset), which become the globals' initial values — the real host refuses
 *    modules with a start section;
 * 3. custom sections: `contractenvmetav0` (protocol 22, pre-release 0), `contractspecv0` from the
 *    same spec tables the clients use (`contracts/<name>/spec.ts`), `contractmetav0` with the
 *    contracts' version and the SHA-256 of the sources.
 *
 * The output is deterministic: `deno task build:contracts` on a clean checkout reproduces the
 * committed Wasm byte for byte (`contracts/build/build_test.ts`).
 *
 * @module
 */
import asc from "assemblyscript/asc";
import binaryen from "binaryen";
import { xdr } from "@stellar/stellar-sdk";
import { REGISTRY_SPEC } from "../registry/spec.ts";
import { VAULT_SPEC } from "../vault/spec.ts";
import { LIQUIDATOR_SPEC } from "../liquidator/spec.ts";

/** Version written into each contract's `contractmetav0`. */
export const CONTRACTS_VERSION = "0.15.0";
/** The protocol the contracts are built for (contractenvmetav0). */
export const ENV_PROTOCOL = 22;

/**
 * One contract to build: its name, the spec it serves (written into `contractspecv0` and checked
 * against the Wasm exports), the folder holding `assembly/index.ts`, and the protocol it declares
 * (default {@link ENV_PROTOCOL}).
 */
export interface ContractSource {
  name: string;
  spec: xdr.ScSpecEntry[];
  source: URL;
  protocol?: number;
}

/** The folder of this member (`contracts/`): source names in the hash are relative to it. */
const CONTRACTS_DIR = new URL("../", import.meta.url);

/** Vigil's own contracts, sources in `contracts/<name>/`. */
export const CONTRACTS: Record<string, xdr.ScSpecEntry[]> = {
  registry: REGISTRY_SPEC,
  vault: VAULT_SPEC,
  liquidator: LIQUIDATOR_SPEC,
};

/** Vigil's contracts as build inputs. */
export function vigilContractSources(): ContractSource[] {
  return Object.entries(CONTRACTS).map(([name, spec]) => ({
    name,
    spec,
    source: new URL(`${name}/`, CONTRACTS_DIR),
  }));
}

/** The Wasm features the real host accepts besides MVP (no floats are used either). */
const ALLOWED_FEATURES = binaryen.Features.MutableGlobals | binaryen.Features.SignExt |
  binaryen.Features.BulkMemory | binaryen.Features.BulkMemoryOpt;

/** `to` relative to `from` (both folders or files under the repository), `../` where needed. */
function relativePath(from: URL, to: URL): string {
  const a = from.pathname.split("/").slice(0, -1);
  const b = to.pathname.split("/");
  let i = 0;
  while (i < a.length && i < b.length - 1 && a[i] === b[i]) i++;
  return "../".repeat(a.length - i) + b.slice(i).join("/");
}

/** The contract's AssemblyScript directory, relative to `contracts/` (no trailing slash). */
function assemblyDir(c: ContractSource): string {
  return relativePath(CONTRACTS_DIR, new URL("assembly/", c.source)).replace(/\/$/, "");
}

/** Every AssemblyScript source a contract build reads (SDK, shared code, the contract). */
async function sourceFiles(c: ContractSource): Promise<string[]> {
  const out: string[] = [];
  for (const dir of ["sdk", "common/assembly", assemblyDir(c)]) {
    for await (const e of Deno.readDir(new URL(dir + "/", CONTRACTS_DIR))) {
      if (e.isFile && e.name.endsWith(".ts")) out.push(`${dir}/${e.name}`);
    }
  }
  return out.sort();
}

export async function sha256Hex(data: Uint8Array): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", data as BufferSource));
  return [...d].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** SHA-256 over the names and contents of the contract's sources (the "source version"). */
async function sourceHash(c: ContractSource): Promise<string> {
  const enc = new TextEncoder();
  const parts: Uint8Array[] = [];
  for (const f of await sourceFiles(c)) {
    parts.push(
      enc.encode(f + "\n"),
      await Deno.readFile(new URL(f, CONTRACTS_DIR)),
      enc.encode("\n"),
    );
  }
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) all.set(p, (o += p.length) - p.length);
  return await sha256Hex(all);
}

/** Runs asc in-process on the contract's entry file; returns the raw module. */
async function compile(c: ContractSource): Promise<Uint8Array> {
  const name = c.name;
  const files: Record<string, Uint8Array> = {};
  const root = new URL("../", CONTRACTS_DIR);
  const { error, stderr } = await asc.main([
    relativePath(root, new URL("assembly/index.ts", c.source)),
    "--outFile",
    "out.wasm",
    "--runtime",
    "stub",
    "-O3z",
    "--noAssert",
    "--use",
    "abort=",
    "--exportStart",
    "_start",
    "--disable",
    "nontrapping-f2i",
    "--disable",
    "simd",
    "--disable",
    "reference-types",
    "--disable",
    "multi-value",
    "--baseDir",
    root.pathname,
  ], {
    writeFile(fname: string, contents: Uint8Array | string) {
      files[fname] = typeof contents === "string" ? new TextEncoder().encode(contents) : contents;
    },
  });
  if (error) throw new Error(`asc failed for ${name}: ${error.message}\n${stderr.toString()}`);
  const out = Object.entries(files).find(([k]) => k.endsWith("out.wasm"));
  if (!out) throw new Error(`asc produced no Wasm for ${name}`);
  return out[1];
}

/**
 * Replaces the exported start function `_start` by its effect: it may only set globals to
 * constants (anything else fails the build rather than silently changing behaviour).
 */
function evaluateStart(m: binaryen.Module): void {
  const exp = m.getExport("_start");
  if (!exp) return;
  const fnName = binaryen.getExportInfo(exp).value;
  const ref = m.getFunction(fnName);
  m.removeExport("_start");
  const body = binaryen.getFunctionInfo(ref).body;
  const info = binaryen.getExpressionInfo(body);
  const stmts = info.id === binaryen.BlockId
    ? (info as binaryen.BlockInfo).children
    : info.id === binaryen.NopId
    ? []
    : [body];
  // Interpret the body: `if (global.get G) return` guards and `global.set G (const)`.
  const values = new Map<string, number>();
  const valueOf = (name: string): number => {
    if (values.has(name)) return values.get(name)!;
    const init = binaryen.getExpressionInfo(binaryen.getGlobalInfo(m.getGlobal(name)).init);
    if (init.id !== binaryen.ConstId) throw new Error(`global ${name} has no constant init`);
    return (init as binaryen.ConstInfo).value as number;
  };
  for (const s of stmts) {
    const e = binaryen.getExpressionInfo(s);
    if (e.id === binaryen.IfId) {
      const i = e as binaryen.IfInfo;
      const cond = binaryen.getExpressionInfo(i.condition);
      if (
        cond.id !== binaryen.GlobalGetId || i.ifFalse ||
        binaryen.getExpressionInfo(i.ifTrue).id !== binaryen.ReturnId
      ) throw new Error("start function has an unsupported branch");
      if (valueOf((cond as binaryen.GlobalGetInfo).name) !== 0) break;
      continue;
    }
    if (e.id !== binaryen.GlobalSetId) throw new Error("start function does more than set globals");
    const set = e as binaryen.GlobalSetInfo;
    const v = binaryen.getExpressionInfo(set.value);
    if (v.id !== binaryen.ConstId) throw new Error(`start sets ${set.name} to a non-constant`);
    values.set(set.name, (v as binaryen.ConstInfo).value as number);
  }
  for (const [name, value] of [...values].sort(([a], [b]) => a < b ? -1 : 1)) {
    const g = binaryen.getGlobalInfo(m.getGlobal(name));
    if (g.type !== binaryen.i32) throw new Error(`start sets non-i32 global ${name}`);
    m.removeGlobal(name);
    m.addGlobal(name, g.type, g.mutable, m.i32.const(value));
  }
  m.removeFunction(fnName);
}

function concat(parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) {
    out.set(p, o);
    o += p.length;
  }
  return out;
}

/** `contractenvmetav0`: the interface version (protocol, pre-release 0). */
export function envMetaSection(protocol = ENV_PROTOCOL): Uint8Array {
  return xdr.ScEnvMetaEntry.scEnvMetaKindInterfaceVersion(
    new xdr.ScEnvMetaEntryInterfaceVersion({ protocol, preRelease: 0 }),
  ).toXDR();
}

/** `contractspecv0`: the spec entries, back to back. */
export function specSection(spec: xdr.ScSpecEntry[]): Uint8Array {
  return concat(spec.map((e) => e.toXDR()));
}

/** `contractmetav0`: free key/value pairs. */
export function metaSection(entries: [string, string][]): Uint8Array {
  return concat(
    entries.map(([key, val]) => xdr.ScMetaEntry.scMetaV0(new xdr.ScMetaV0({ key, val })).toXDR()),
  );
}

/** Names of the functions a spec declares. */
export function specFunctionNames(spec: xdr.ScSpecEntry[]): string[] {
  return spec
    // deno-lint-ignore no-explicit-any
    .map((e) => (e as any).toJson() as { function_v0?: { name: string } })
    .filter((j) => j.function_v0 !== undefined)
    .map((j) => j.function_v0!.name)
    .sort();
}

/** Builds one contract; returns the final Wasm bytes (not written). */
export async function buildContract(c: ContractSource): Promise<Uint8Array> {
  const { name, spec } = c;
  const raw = await compile(c);
  // Exactly the features the Soroban host allows.
  const m = binaryen.readBinaryWithFeatures(raw, ALLOWED_FEATURES);
  try {
    evaluateStart(m);
    // Every function in the spec is exported and nothing else is (besides memory).
    const specFns = specFunctionNames(spec);
    const exported: string[] = [];
    for (let i = 0; i < m.getNumExports(); i++) {
      const ex = binaryen.getExportInfo(m.getExportByIndex(i));
      if (ex.kind === binaryen.ExternalFunction) exported.push(ex.name);
    }
    exported.sort();
    if (JSON.stringify(specFns) !== JSON.stringify(exported)) {
      throw new Error(
        `${name}: spec functions ${specFns.join(",")} ≠ Wasm exports ${exported.join(",")}`,
      );
    }
    m.addCustomSection("contractenvmetav0", envMetaSection(c.protocol ?? ENV_PROTOCOL));
    m.addCustomSection("contractspecv0", specSection(spec));
    m.addCustomSection(
      "contractmetav0",
      metaSection([
        ["vigil_version", CONTRACTS_VERSION],
        ["source_sha256", await sourceHash(c)],
        ["toolchain", `assemblyscript ${asc.version}`],
      ]),
    );
    if (!m.validate()) throw new Error(`${name}: binaryen validation failed`);
    return m.emitBinary();
  } finally {
    m.dispose();
  }
}
