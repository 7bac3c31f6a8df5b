/**
 * The real Soroban host validates every AssemblyScript Wasm we ship (contracts/wasm/ and the test
 * fixtures, `contractenvmetav0` protocol 22) at upload, at the node's protocol. A refusal names
 * the file and the host's error.
 */
import assert from "node:assert/strict";
import { Keypair, xdr } from "@stellar/stellar-sdk";
import { closeRealHost, REAL_HOST_PROTOCOL } from "./mod.ts";
import { RealLedger } from "@vigil/testing/real_host/ledger";
import { BLEND_WASM_NAMES, loadBlendWasm } from "../protocols/blend/wasm.ts";
import { WORLD_WASM_DIR } from "../protocols/world_contracts.ts";
import { WASM_DIR } from "@vigil/contracts/wasm_path";
import { TEST_WASM_DIR } from "@vigil/testing/contracts/wasm_path";

function wasmFiles(): URL[] {
  const out: URL[] = [];
  // Vigil's and the world's Wasm share contracts/wasm/; the fixtures are in its fixtures/.
  for (const base of new Set([WASM_DIR.href, WORLD_WASM_DIR.href, TEST_WASM_DIR.href])) {
    for (const f of Deno.readDirSync(new URL(base))) {
      if (f.name.endsWith(".wasm")) out.push(new URL(f.name, base));
    }
  }
  return out.sort((a, b) => a.pathname.localeCompare(b.pathname));
}

/** The `ScEnvMetaEntry` interface version the Wasm declares (protocol, pre-release). */
function envMetaProtocol(wasm: Uint8Array<ArrayBuffer>): number {
  const mod = new WebAssembly.Module(wasm);
  const [meta] = WebAssembly.Module.customSections(mod, "contractenvmetav0");
  const entry = xdr.ScEnvMetaEntry.fromXdr(new Uint8Array(meta).slice(0, 12));
  const json = entry.toJson() as { sc_env_meta_kind_interface_version: { protocol: number } };
  return json.sc_env_meta_kind_interface_version.protocol;
}

Deno.test("real host: uploads every Wasm we ship", () => {
  try {
    const l = new RealLedger();
    const deployer = Keypair.random().publicKey();
    l.account(deployer, 1_000_0000000n);
    const files = wasmFiles();
    assert.ok(files.length >= 20, `found only ${files.length} Wasm files`);
    const refused: string[] = [];
    for (const f of files) {
      const wasm = Deno.readFileSync(f);
      const protocol = envMetaProtocol(wasm);
      assert.ok(protocol >= 20 && protocol <= REAL_HOST_PROTOCOL, `${f.pathname}: ${protocol}`);
      const hf = xdr.HostFunction.hostFunctionTypeUploadContractWasm(wasm);
      const sim = l.simulate(deployer, hf);
      if (!sim.ok || !sim.transactionData) {
        refused.push(`${f.pathname.split("/").slice(-2).join("/")}: ${sim.error?.debug}`);
        continue;
      }
      const out = l.apply1(deployer, hf, sim.transactionData, sim.auth);
      if (!out.ok) refused.push(`${f.pathname}: apply: ${out.error?.debug}`);
    }
    assert.deepEqual(refused, []);
  } finally {
    closeRealHost();
  }
});

Deno.test("real host: uploads Blend v2's Rust-built Wasm (protocol-22 era) at protocol 27", async () => {
  const blend = await loadBlendWasm();
  try {
    const l = new RealLedger();
    const deployer = Keypair.random().publicKey();
    l.account(deployer, 1_000_0000000n);
    const refused: string[] = [];
    for (const name of BLEND_WASM_NAMES) {
      const wasm = blend.wasm[name] as Uint8Array<ArrayBuffer>;
      const protocol = envMetaProtocol(wasm);
      assert.ok(protocol >= 20 && protocol <= REAL_HOST_PROTOCOL, `${name}: ${protocol}`);
      const hf = xdr.HostFunction.hostFunctionTypeUploadContractWasm(wasm);
      const sim = l.simulate(deployer, hf);
      if (!sim.ok || !sim.transactionData) {
        refused.push(`${name}: ${sim.error?.debug}`);
        continue;
      }
      const out = l.apply1(deployer, hf, sim.transactionData, sim.auth);
      if (!out.ok) refused.push(`${name}: apply: ${out.error?.debug}`);
    }
    assert.deepEqual(refused, []);
  } finally {
    closeRealHost();
  }
});
