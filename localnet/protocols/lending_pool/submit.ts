/**
 * `submit` / `submit_with_allowance` (Blend v2 `pool/actions.rs` + `pool/submit.rs`): builds the
 * position changes and token movements of a request list, validates the result (max positions,
 * no liquidation left on `from`, health factor ≥ 1.0000100, min collateral), moves tokens
 * through the asset contracts and stores the new state.
 *
 * @module
 */
import { type Env, fail } from "../../../contracts/sdk.ts";
import { deleteLiquidation, fillAuction, USER_LIQUIDATION } from "./auctions.ts";
import { PoolError } from "./errors.ts";
import { emitDeleteAuction, emitFillAuction, emitPositionEvent } from "./events.ts";
import { effectiveCount, isHfUnder, Pool, positionData, User } from "./pool.ts";
import {
  requireReserveActionAllowed,
  requireUtilizationBelow100,
  requireUtilizationBelowMax,
  toAssetFromB,
  toAssetFromD,
  toBDown,
  toBUp,
  toDDown,
  toDUp,
  totalSupply,
} from "./reserve.ts";
import { hasAuction, type Positions } from "./storage.ts";

/** One request (the contract's `Request` struct). */
export interface Request {
  request_type: number;
  address: string;
  amount: bigint;
}

/** Request type numbers (identical to the contract's `RequestType`). */
export const RequestType = {
  Supply: 0,
  Withdraw: 1,
  SupplyCollateral: 2,
  WithdrawCollateral: 3,
  Borrow: 4,
  Repay: 5,
  FillUserLiquidationAuction: 6,
  FillBadDebtAuction: 7,
  FillInterestAuction: 8,
  DeleteLiquidationAuction: 9,
} as const;

/** Tokens the spender owes the pool and the pool owes `to`, per asset. */
interface Actions {
  spender: Map<string, bigint>;
  pool: Map<string, bigint>;
  checkHealth: boolean;
}

function add(m: Map<string, bigint>, asset: string, amount: bigint): void {
  m.set(asset, (m.get(asset) ?? 0n) + amount);
}

/** Applies the requests to `from` in memory and returns the transfers to make. */
function buildActions(env: Env, pool: Pool, from: User, requests: Request[]): Actions {
  const actions: Actions = { spender: new Map(), pool: new Map(), checkHealth: false };
  for (const req of requests) {
    const amount = BigInt(req.amount);
    const type = Number(req.request_type);
    if (amount < 0n) fail(PoolError.NegativeAmountError);
    pool.requireActionAllowed(type);
    switch (type) {
      case RequestType.Supply:
      case RequestType.SupplyCollateral: {
        const collateral = type === RequestType.SupplyCollateral;
        const r = pool.loadReserve(req.address, true);
        requireReserveActionAllowed(r, type);
        const minted = toBDown(r, amount);
        if (collateral) from.addCollateral(r, minted);
        else from.addSupply(r, minted);
        if (totalSupply(r) > r.config.supply_cap) fail(PoolError.ExceededSupplyCap);
        add(actions.spender, r.asset, amount);
        const event = collateral ? "supply_collateral" : "supply";
        emitPositionEvent(env, event, req.address, from.address, amount, minted);
        break;
      }
      case RequestType.Withdraw:
      case RequestType.WithdrawCollateral: {
        const collateral = type === RequestType.WithdrawCollateral;
        const r = pool.loadReserve(req.address, true);
        const i = r.config.index;
        const cur = collateral ? from.getCollateral(i) : from.getSupply(i);
        let burn = toBUp(r, amount);
        let out = amount;
        if (burn > cur) {
          burn = cur;
          out = toAssetFromB(r, cur);
        }
        if (collateral) from.removeCollateral(r, burn);
        else from.removeSupply(r, burn);
        requireUtilizationBelow100(r);
        add(actions.pool, r.asset, out);
        // Less collateral can leave the user unhealthy; less plain supply cannot.
        if (collateral) actions.checkHealth = true;
        const event = collateral ? "withdraw_collateral" : "withdraw";
        emitPositionEvent(env, event, req.address, from.address, out, burn);
        break;
      }
      case RequestType.Borrow: {
        const r = pool.loadReserve(req.address, true);
        requireReserveActionAllowed(r, type);
        const minted = toDUp(r, amount);
        from.addLiabilities(r, minted);
        requireUtilizationBelowMax(r);
        add(actions.pool, r.asset, amount);
        actions.checkHealth = true;
        emitPositionEvent(env, "borrow", req.address, from.address, amount, minted);
        break;
      }
      case RequestType.Repay: {
        const r = pool.loadReserve(req.address, true);
        const cur = from.getLiabilities(r.config.index);
        const burnt = toDDown(r, amount);
        add(actions.spender, r.asset, amount);
        if (burnt > cur) {
          const refund = amount - toAssetFromD(r, cur);
          if (refund < 0n) fail(PoolError.NegativeAmountError);
          from.removeLiabilities(r, cur);
          add(actions.pool, r.asset, refund);
          emitPositionEvent(env, "repay", req.address, from.address, amount - refund, cur);
        } else {
          from.removeLiabilities(r, burnt);
          emitPositionEvent(env, "repay", req.address, from.address, amount, burnt);
        }
        break;
      }
      case RequestType.FillUserLiquidationAuction:
      case RequestType.FillBadDebtAuction:
      case RequestType.FillInterestAuction: {
        const auctionType = type - RequestType.FillUserLiquidationAuction;
        const filled = fillAuction(env, pool, auctionType, req.address, from, amount);
        if (auctionType !== 2) actions.checkHealth = true;
        emitFillAuction(env, auctionType, req.address, from.address, amount, filled);
        break;
      }
      case RequestType.DeleteLiquidationAuction: {
        deleteLiquidation(env, from.address);
        actions.checkHealth = true;
        emitDeleteAuction(env, USER_LIQUIDATION, from.address);
        break;
      }
      default:
        fail(PoolError.BadRequest);
    }
  }
  return actions;
}

/**
 * Runs a submit. `useAllowance` nets the transfers per asset and pulls with `transfer_from`
 * (`submit_with_allowance`); otherwise the spender pays with `transfer`.
 */
export function executeSubmit(
  env: Env,
  from: string,
  spender: string,
  to: string,
  requests: Request[],
  useAllowance: boolean,
): Positions {
  const self = env.currentContract;
  if (from === self || spender === self || to === self) fail(PoolError.BadRequest);
  const pool = Pool.load(env);
  const user = User.load(env, from);
  const prevCount = effectiveCount(user.positions);
  const actions = buildActions(env, pool, user, requests);

  pool.requireUnderMax(user.positions, prevCount);
  if (hasAuction(env, USER_LIQUIDATION, from)) fail(PoolError.AuctionInProgress);
  if (actions.checkHealth && user.hasLiabilities()) {
    const pd = positionData(pool, user.positions);
    if (isHfUnder(pd, 1_0000100n)) fail(PoolError.InvalidHf);
    if (pd.collateral_base < pool.config.min_collateral) fail(PoolError.MinCollateralNotMet);
  }

  if (useAllowance) {
    const net = new Map<string, bigint>();
    for (const [asset, amount] of actions.spender) add(net, asset, -amount);
    for (const [asset, amount] of actions.pool) add(net, asset, amount);
    for (const [asset, amount] of net) {
      if (amount < 0n) env.call(asset, "transfer_from", [self, spender, self, -amount]);
      else if (amount > 0n) env.call(asset, "transfer", [self, to, amount]);
    }
  } else {
    for (const [asset, amount] of actions.spender) {
      env.call(asset, "transfer", [spender, self, amount]);
    }
    for (const [asset, amount] of actions.pool) env.call(asset, "transfer", [self, to, amount]);
  }

  pool.storeCachedReserves();
  user.store(env);
  return user.positions;
}
