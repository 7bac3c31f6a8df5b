/**
 * Builds Vigil's Soroban contracts from their AssemblyScript sources (`contracts/<name>/assembly/`,
 * SDK in `contracts/sdk/`) into `contracts/wasm/<name>.wasm`:
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
 * committed Wasm byte for byte (`tests/contracts/wasm_build_test.ts`).
 *
 * @module
 */
import asc from "assemblyscript/asc";
import binaryen from "binaryen";
import { xdr } from "@stellar/stellar-sdk";
import { REGISTRY_SPEC } from "./registry/spec.ts";
import { VAULT_SPEC } from "./vault/spec.ts";
import { LIQUIDATOR_SPEC } from "./liquidator/spec.ts";
import { ORACLE_SPEC } from "./oracle/spec.ts";
import { ALLOCATION_VAULT_SPEC } from "./allocation_vault/spec.ts";
import { HODL_STRATEGY_SPEC } from "./hodl_strategy/spec.ts";
import { SOROSWAP_FACTORY_SPEC } from "./soroswap_factory/spec.ts";
import { SOROSWAP_PAIR_SPEC } from "./soroswap_pair/spec.ts";
import { SOROSWAP_ROUTER_SPEC } from "./soroswap_router/spec.ts";
import { TEST_WASM_DIR, testWasmPath, WASM_DIR, wasmPath } from "./wasm_path.ts";

export { TEST_WASM_DIR, testWasmPath, WASM_DIR, wasmPath };

/** Version written into each contract's `contractmetav0`. */
export const CONTRACTS_VERSION = "0.15.0";
/** The protocol the contracts are built for (contractenvmetav0). */
export const ENV_PROTOCOL = 22;

/** Vigil's contracts and the spec each one serves. */
export const CONTRACTS: Record<string, xdr.ScSpecEntry[]> = {
  registry: REGISTRY_SPEC,
  vault: VAULT_SPEC,
  liquidator: LIQUIDATOR_SPEC,
  /** The local market's SEP-40 oracle (a protocol stand-in, not one of Vigil's contracts). */
  oracle: ORACLE_SPEC,
  /** The DeFindex-style allocation vault the keeper rebalances (a protocol stand-in). */
  allocation_vault: ALLOCATION_VAULT_SPEC,
  /** The allocation vault's HODL strategy (a protocol stand-in). */
  hodl_strategy: HODL_STRATEGY_SPEC,
  /** The local market's Soroswap-ABI DEX (protocol stand-ins, not Vigil's contracts). */
  soroswap_factory: SOROSWAP_FACTORY_SPEC,
  soroswap_pair: SOROSWAP_PAIR_SPEC,
  soroswap_router: SOROSWAP_ROUTER_SPEC,
};

/** The module holding the test-fixture contracts' table (`TEST_CONTRACT_SPECS`). */
const TEST_SPECS_MODULE = new URL("../tests/fixtures/contracts/specs.ts", import.meta.url).href;

/**
 * The second table: test-only contracts (fixtures the tests deploy: counter, payer, the scripted
 * executor, fake venues, the host probe…) and their specs. Sources in
 * `tests/fixtures/contracts/<name>/`, built with the same SDK and steps into
 * `contracts/wasm/fixtures/<name>.wasm`; never deployed by `deploy_net.ts`. Loaded on
 * demand (a computed specifier), so the program's module graph — `deploy_net.ts`, the market
 * scenario, a compiled binary — never includes test code.
 */
export async function testContracts(): Promise<Record<string, xdr.ScSpecEntry[]>> {
  const m = await import(TEST_SPECS_MODULE);
  return m.TEST_CONTRACT_SPECS;
}

/** The Wasm features the real host accepts besides MVP (no floats are used either). */
const ALLOWED_FEATURES = binaryen.Features.MutableGlobals | binaryen.Features.SignExt |
  binaryen.Features.BulkMemory | binaryen.Features.BulkMemoryOpt;

const ROOT = new URL("./", import.meta.url);

/** The contract's AssemblyScript directory, relative to `contracts/`. */
function assemblyDir(name: string): string {
  return name in CONTRACTS ? `${name}/assembly` : `../tests/fixtures/contracts/${name}/assembly`;
}

/** Every AssemblyScript source a contract build reads (SDK, shared code, the contract). */
async function sourceFiles(name: string): Promise<string[]> {
  const out: string[] = [];
  for (const dir of ["sdk", "common/assembly", assemblyDir(name)]) {
    for await (const e of Deno.readDir(new URL(dir + "/", ROOT))) {
      if (e.isFile && e.name.endsWith(".ts")) out.push(`${dir}/${e.name}`);
    }
  }
  return out.sort();
}

async function sha256Hex(data: Uint8Array): Promise<string> {
  const d = new Uint8Array(await crypto.subtle.digest("SHA-256", data as BufferSource));
  return [...d].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/** SHA-256 over the names and contents of the contract's sources (the "source version"). */
async function sourceHash(name: string): Promise<string> {
  const enc = new TextEncoder();
  const parts: Uint8Array[] = [];
  for (const f of await sourceFiles(name)) {
    parts.push(enc.encode(f + "\n"), await Deno.readFile(new URL(f, ROOT)), enc.encode("\n"));
  }
  const all = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let o = 0;
  for (const p of parts) all.set(p, (o += p.length) - p.length);
  return await sha256Hex(all);
}

/** Runs asc in-process on the contract's entry file; returns the raw module. */
async function compile(name: string): Promise<Uint8Array> {
  const files: Record<string, Uint8Array> = {};
  const root = new URL("../", ROOT).pathname;
  const { error, stderr } = await asc.main([
    `contracts/${assemblyDir(name)}/index.ts`.replace("contracts/../", ""),
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
    root,
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

/** The protocol a contract declares: `ENV_PROTOCOL`, unless a test fixture names another. */
async function protocolOf(name: string): Promise<number> {
  if (name in CONTRACTS) return ENV_PROTOCOL;
  const m = await import(TEST_SPECS_MODULE);
  return (m.TEST_CONTRACT_PROTOCOLS as Record<string, number> | undefined)?.[name] ??
    ENV_PROTOCOL;
}

/** Builds one contract; returns the final Wasm bytes (not written). */
export async function buildContract(name: string): Promise<Uint8Array> {
  const spec = CONTRACTS[name] ?? (await testContracts())[name];
  if (!spec) throw new Error(`unknown contract ${name}`);
  const raw = await compile(name);
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
    m.addCustomSection("contractenvmetav0", envMetaSection(await protocolOf(name)));
    m.addCustomSection("contractspecv0", specSection(spec));
    m.addCustomSection(
      "contractmetav0",
      metaSection([
        ["vigil_version", CONTRACTS_VERSION],
        ["source_sha256", await sourceHash(name)],
        ["toolchain", `assemblyscript ${asc.version}`],
      ]),
    );
    if (!m.validate()) throw new Error(`${name}: binaryen validation failed`);
    return m.emitBinary();
  } finally {
    m.dispose();
  }
}

if (import.meta.main) {
  const tests = await testContracts();
  for (const name of Object.keys(tests)) {
    if (name in CONTRACTS) throw new Error(`test contract ${name} shadows a product contract`);
  }
  const tables: [Record<string, xdr.ScSpecEntry[]>, URL, (n: string) => URL][] = [
    [CONTRACTS, WASM_DIR, wasmPath],
    [tests, TEST_WASM_DIR, testWasmPath],
  ];
  for (const [table, dir, path] of tables) {
    await Deno.mkdir(dir, { recursive: true });
    for (const name of Object.keys(table)) {
      const wasm = await buildContract(name);
      await Deno.writeFile(path(name), wasm);
      console.log(`${name}: ${wasm.length} bytes, sha256 ${await sha256Hex(wasm)}`);
    }
  }
}
