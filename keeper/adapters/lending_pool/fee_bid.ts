/**
 * How much inclusion fee a flash is worth: a share of the profit it books, in XLM at the pool
 * oracle's prices. Under surge pricing the transaction with the higher bid is included first, so a
 * large liquidation should not lose its ledger over a fee that is tiny next to what it returns; a
 * small one keeps the fee-stats bid. MAX_INCLUSION_FEE caps it either way (the operator pays the
 * fee, depositors get the profit).
 *
 * @module
 */
import { Asset } from "@stellar/stellar-sdk";
import type { PoolState } from "./pool_state.ts";

/** The share of a flash's simulated profit bid as inclusion fee, basis points (5 %). */
export const FEE_SHARE_OF_PROFIT_BPS = 500n;

/**
 * The inclusion fee (stroops) worth bidding for `profit` (7-decimal USDC units): 5 % of it in
 * XLM at the oracle's XLM/USDC prices; undefined when the pool's oracle prices neither (then the
 * fee-stats bid stands). Not capped here: the pipeline caps every bid at MAX_INCLUSION_FEE.
 */
export function feeForProfit(
  profit: bigint,
  prices: { xlm?: bigint; usdc?: bigint },
): number | undefined {
  const { xlm, usdc } = prices;
  if (profit <= 0n || !xlm || !usdc || xlm <= 0n || usdc <= 0n) return undefined;
  // USDC units → XLM stroops (both 7 decimals): profit × P(usdc) / P(xlm).
  const stroops = (profit * usdc * FEE_SHARE_OF_PROFIT_BPS) / (xlm * 10_000n);
  return stroops > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(stroops);
}

/** The oracle prices {@link feeForProfit} needs, read from a pool's state (native XLM's SAC). */
export function feePrices(
  state: Pick<PoolState, "oracle">,
  usdc: string,
  networkPassphrase: string,
): { xlm?: bigint; usdc?: bigint } {
  const xlm = Asset.native().contractId(networkPassphrase);
  return { xlm: state.oracle.getPrice(xlm), usdc: state.oracle.getPrice(usdc) };
}
