/**
 * A contract's own interface, read from its Wasm's `contractspecv0` section over RPC (two
 * getLedgerEntries: instance, then code) and cached per process: function names (to detect an
 * ABI or an optional function) and error names (to name `Error(Contract, #N)` without
 * hard-coding another project's numbering). The one spec cache of the keeper and the web
 * (`client.ts`); browser-safe.
 *
 * @module
 */
import { contract, type rpc } from "@stellar/stellar-sdk";
import type { ChainRpc } from "./rpc.ts";

type SpecServer = Pick<rpc.Server, "getContractWasmByContractId">;

// Per server object: one RPC URL may be served by several clients (counted, timed…).
let cache = new WeakMap<SpecServer, Map<string, Promise<contract.Spec>>>();

/**
 * The contract's spec read through `server`, cached per server and contract. Rejects when it
 * cannot be read; a failed read is not cached (the next call tries again).
 */
export function specOf(server: SpecServer, contractId: string): Promise<contract.Spec> {
  let m = cache.get(server);
  if (!m) cache.set(server, m = new Map());
  let p = m.get(contractId);
  if (!p) {
    p = server.getContractWasmByContractId(contractId).then((wasm) => contract.Spec.fromWasm(wasm));
    m.set(contractId, p);
    const mine = m;
    p.catch(() => mine.get(contractId) === p && mine.delete(contractId));
  }
  return p;
}

/** Forgets every cached spec (tests redeploy contracts at the same RPC URL). */
export function clearSpecs(): void {
  cache = new WeakMap();
}

/** The contract's spec, or undefined when it cannot be read (never throws). */
export function contractSpec(
  chain: ChainRpc,
  contractId: string,
): Promise<contract.Spec | undefined> {
  return specOf(chain.server, contractId).catch(() => undefined);
}

/** Function names of the contract (undefined when its spec is unreadable). */
export async function contractFunctions(
  chain: ChainRpc,
  contractId: string,
): Promise<Set<string> | undefined> {
  const spec = await contractSpec(chain, contractId);
  if (!spec) return undefined;
  return new Set(spec.funcs().map((f) => String(f.name)));
}

/** The name of contract error `code` in the contract's error enum, if it declares one. */
export async function contractErrorName(
  chain: ChainRpc,
  contractId: string,
  code: number,
): Promise<string | undefined> {
  const spec = await contractSpec(chain, contractId);
  try {
    return spec?.errorCases().find((c) => Number(c.value) === code)?.name.toString();
  } catch {
    return undefined;
  }
}
