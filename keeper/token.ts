/**
 * Token reads and the keeper's classic trustlines.
 *
 * A G account holds a classic asset (its Stellar Asset Contract's balance) only through a
 * trustline; a liquidation lot paid in an asset the keeper has no trustline for would fail the
 * fill. {@link ensureTrustline} creates it (one ChangeTrust transaction) before capital is drawn.
 *
 * @module
 */
import { sendChangeTrust } from "@vigil/soroban/change_trust";
import { Asset, type Keypair } from "@stellar/stellar-sdk";
import { ContractCallError } from "@vigil/soroban/errors";
import type { ChainRpc } from "@vigil/soroban/rpc";
import { big, native, sv } from "@vigil/soroban/scval";
import { type InvokeOptions, simulateRead } from "@vigil/soroban/tx";

/** SAC error: the G holder has no trustline for the asset. */
export const SAC_TRUSTLINE_MISSING = 13;

/** `token.balance(holder)` (one simulation). */
export async function tokenBalance(
  chain: ChainRpc,
  token: string,
  holder: string,
): Promise<bigint> {
  const r = await simulateRead(chain, token, "balance", [sv.address(holder)]);
  return big(native(r.retval));
}

/** Like {@link tokenBalance}, but 0 when the holder has no trustline (rather than an error). */
export async function tokenBalanceOrZero(
  chain: ChainRpc,
  token: string,
  holder: string,
): Promise<bigint> {
  try {
    return await tokenBalance(chain, token, holder);
  } catch (err) {
    if (err instanceof ContractCallError && err.contractCode === SAC_TRUSTLINE_MISSING) return 0n;
    throw err;
  }
}

/** Native balance of a G account in stroops (one getLedgerEntries). */
export async function nativeBalance(chain: ChainRpc, account: string): Promise<bigint> {
  const entry = await chain.server.getAccountEntry(account);
  return BigInt(entry.balance);
}

/** The classic asset behind a Stellar Asset Contract (`name()` is "native" or "CODE:ISSUER"). */
export async function classicAssetOf(chain: ChainRpc, token: string): Promise<Asset | undefined> {
  let name: string;
  try {
    name = String(native((await simulateRead(chain, token, "name")).retval));
  } catch {
    return undefined;
  }
  if (name === "native") return Asset.native();
  const m = /^([A-Za-z0-9]{1,12}):(G[A-Z2-7]{55})$/.exec(name);
  return m ? new Asset(m[1], m[2]) : undefined;
}

/**
 * Makes sure `keypair` can hold `token`: "ok" when it already can (or the token is not a
 * classic asset), "created" after a ChangeTrust transaction succeeded.
 */
export async function ensureTrustline(
  chain: ChainRpc,
  keypair: Keypair,
  token: string,
  opts: InvokeOptions = {},
): Promise<"ok" | "created"> {
  const me = keypair.publicKey();
  try {
    await tokenBalance(chain, token, me);
    return "ok";
  } catch (err) {
    if (!(err instanceof ContractCallError && err.contractCode === SAC_TRUSTLINE_MISSING)) {
      throw err;
    }
  }
  const asset = await classicAssetOf(chain, token);
  if (!asset || asset.isNative()) throw new Error(`cannot create a trustline for ${token}`);
  const r = await sendChangeTrust(chain, keypair, asset, opts);
  if (r.failed) {
    throw new Error(`ChangeTrust for ${asset.getCode()} failed: ${r.failed.opCode ?? "?"}`);
  }
  return "created";
}
