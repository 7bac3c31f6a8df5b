/**
 * A contract's own interface, read from its Wasm's `contractspecv0` section over RPC (two
 * getLedgerEntries: instance, then code) and cached per process: function names (to detect an
 * ABI or an optional function) and error names (to name `Error(Contract, #N)` without
 * hard-coding another project's numbering).
 *
 * @module
 */
import { contract } from "@stellar/stellar-sdk";
import type { ChainRpc } from "./rpc.ts";

const cache = new WeakMap<ChainRpc, Map<string, Promise<contract.Spec | undefined>>>();

/** The contract's spec, or undefined when it cannot be read (never throws). */
export function contractSpec(
  chain: ChainRpc,
  contractId: string,
): Promise<contract.Spec | undefined> {
  let m = cache.get(chain);
  if (!m) cache.set(chain, m = new Map());
  let p = m.get(contractId);
  if (!p) {
    p = chain.server.getContractWasmByContractId(contractId).then(
      (wasm) => contract.Spec.fromWasm(wasm),
      () => undefined,
    );
    m.set(contractId, p);
    // A failed read is not cached: the next call tries again.
    p.then((s) => s === undefined && m!.delete(contractId));
  }
  return p;
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
