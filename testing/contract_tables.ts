/**
 * Every AssemblyScript contract of the repository as build inputs, by table, with where its
 * committed Wasm lives: Vigil's (`contracts/wasm/`), the local node's world contracts
 * (`contracts/wasm/`) and the test fixtures (`contracts/wasm/fixtures/`). Read by `tools/build_contracts.ts`
 * and the build tests.
 *
 * @module
 */
import { type ContractSource, vigilContractSources } from "@vigil/contracts/build";
import { wasmPath } from "@vigil/contracts/wasm_path";
import { worldContractSources, worldWasmPath } from "@vigil/localnet/protocols/world_contracts";
import { fixtureContractSources } from "./contracts/specs.ts";
import { testWasmPath } from "./contracts/wasm_path.ts";

/** One table: its kind, its contracts and the path of each one's committed Wasm. */
export interface ContractTable {
  kind: "Vigil" | "world" | "test fixture";
  sources: ContractSource[];
  wasmPath: (name: string) => URL;
}

/** The three tables, Vigil's first. */
export const CONTRACT_TABLES: ContractTable[] = [
  { kind: "Vigil", sources: vigilContractSources(), wasmPath },
  { kind: "world", sources: worldContractSources(), wasmPath: worldWasmPath },
  { kind: "test fixture", sources: fixtureContractSources(), wasmPath: testWasmPath },
];
