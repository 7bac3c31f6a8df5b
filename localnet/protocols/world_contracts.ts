/**
 * The simulated world's own contracts, written in AssemblyScript with Vigil's contract SDK:
 * stand-ins of protocols the keeper meets on the real network (a SEP-40 oracle, a Soroswap-ABI
 * DEX, a DeFindex-style allocation vault and its strategy). Not Vigil's contracts: nothing outside
 * the local node deploys them. Sources in `protocols/<protocol>/contract(s)/<name>/`, built by
 * `deno task build:contracts` into `contracts/wasm/<name>.wasm`.
 *
 * @module
 */
import type { xdr } from "@stellar/stellar-sdk";
import { ORACLE_SPEC } from "./oracle/contract/spec.ts";
import { SOROSWAP_FACTORY_SPEC } from "./dex/contracts/soroswap_factory/spec.ts";
import { SOROSWAP_PAIR_SPEC } from "./dex/contracts/soroswap_pair/spec.ts";
import { SOROSWAP_ROUTER_SPEC } from "./dex/contracts/soroswap_router/spec.ts";
import { ALLOCATION_VAULT_SPEC } from "./allocation_vault/contracts/allocation_vault/spec.ts";
import { HODL_STRATEGY_SPEC } from "./allocation_vault/contracts/hodl_strategy/spec.ts";

/** A world contract: its spec table and the folder holding `assembly/index.ts`. */
export interface WorldContract {
  spec: xdr.ScSpecEntry[];
  source: URL;
}

const at = (dir: string) => new URL(dir, import.meta.url);

/** Every world contract by name (the name of its Wasm file). */
export const WORLD_CONTRACTS: Record<string, WorldContract> = {
  oracle: { spec: ORACLE_SPEC, source: at("./oracle/contract/") },
  soroswap_factory: {
    spec: SOROSWAP_FACTORY_SPEC,
    source: at("./dex/contracts/soroswap_factory/"),
  },
  soroswap_pair: { spec: SOROSWAP_PAIR_SPEC, source: at("./dex/contracts/soroswap_pair/") },
  soroswap_router: { spec: SOROSWAP_ROUTER_SPEC, source: at("./dex/contracts/soroswap_router/") },
  allocation_vault: {
    spec: ALLOCATION_VAULT_SPEC,
    source: at("./allocation_vault/contracts/allocation_vault/"),
  },
  hodl_strategy: {
    spec: HODL_STRATEGY_SPEC,
    source: at("./allocation_vault/contracts/hodl_strategy/"),
  },
};

/**
 * Directory of the world contracts' committed Wasm: `contracts/wasm/`, the one folder of the
 * repository that holds committed Wasm (Vigil's, the world's and the fixtures'). Read as files
 * (never imported), so the node does not depend on the `contracts` member.
 */
export const WORLD_WASM_DIR: URL = new URL("../../contracts/wasm/", import.meta.url);

/** Path of a world contract's committed Wasm. */
export const worldWasmPath = (name: string): URL => new URL(`${name}.wasm`, WORLD_WASM_DIR);

/** The world contracts as build inputs (`contracts/build/`'s `ContractSource`). */
export function worldContractSources(): { name: string; spec: xdr.ScSpecEntry[]; source: URL }[] {
  return Object.entries(WORLD_CONTRACTS).map(([name, c]) => ({ name, ...c }));
}
