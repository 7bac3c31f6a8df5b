/**
 * Token reads: SEP-41 `balance(id)` by simulation, and the native (fee) balance of a G account.
 *
 * @module
 */
import type { ChainRpc } from "./chain/rpc.ts";
import { big, native, sv } from "./chain/scval.ts";
import { simulateRead } from "./chain/tx.ts";

/** `token.balance(holder)` (one simulation). */
export async function tokenBalance(
  chain: ChainRpc,
  token: string,
  holder: string,
): Promise<bigint> {
  const r = await simulateRead(chain, token, "balance", [sv.address(holder)]);
  return big(native(r.retval));
}

/** Native balance of a G account in stroops (one getLedgerEntries). */
export async function nativeBalance(chain: ChainRpc, account: string): Promise<bigint> {
  const entry = await chain.server.getAccountEntry(account);
  return BigInt(entry.balance);
}
