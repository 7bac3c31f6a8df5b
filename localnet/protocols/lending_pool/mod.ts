/**
 * Lending pool stand-in: a Blend v2 pool hosted by the local node.
 *
 * Same function names, argument order, return shapes, storage layout, events and error codes as
 * `blend-contracts-v2` `pool` v2.0.0 for the paths a liquidation keeper uses (supply/borrow via
 * `submit`, user-liquidation auctions, reads), so `@blend-capital/blend-sdk` 3.2.x loads it over
 * JSON-RPC unchanged. Deviations (no backstop contract, no emissions, no flash loans) are listed
 * in `localnet/protocols/lending_pool/README.md`.
 *
 * @module
 */
import type { xdr } from "@stellar/stellar-sdk";
import { type ContractModule, type Env, fail } from "../../../contracts/sdk.ts";
import { addr, address, sym } from "./codec.ts";
import {
  checkAndHandleUserBadDebt,
  createAuction,
  deleteStaleAuction,
  USER_LIQUIDATION,
} from "./auctions.ts";
import {
  cancelSetReserve,
  initialize,
  queueSetReserve,
  requireAdmin,
  reserveStruct,
  setReserve,
  setStatus,
  toReserveConfig,
  updatePool,
} from "./config.ts";
import { PoolError } from "./errors.ts";
import { emitDeleteAuction, emitNewAuction } from "./events.ts";
import { Pool, User } from "./pool.ts";
import { accrue, makeReserve } from "./reserve.ts";
import { lendingPoolSpec } from "./spec.ts";
import {
  type AuctionData,
  encodeAuction,
  encodePoolConfig,
  encodePositions,
  extendInstance,
  getAuction,
  getInstanceAddress,
  getPoolConfig,
  getPositions,
  getResConfig,
  getResData,
  getResList,
  hasAuction,
  keys,
  type PoolConfig,
  type Positions,
} from "./storage.ts";
import { executeSubmit, type Request } from "./submit.ts";

export { PoolError } from "./errors.ts";
export { RequestType } from "./submit.ts";
export type { AuctionData, PoolConfig, Positions, ReserveConfig, ReserveData } from "./storage.ts";

// Return values are handed to the host as ready ScVals (the host passes them through), so
// they carry exactly the bytes the storage layout uses.
const positionsOut = (p: Positions): xdr.ScVal => encodePositions(p);
const auctionOut = (a: AuctionData): xdr.ScVal => encodeAuction(a);

function normRequests(requests: unknown[]): Request[] {
  // deno-lint-ignore no-explicit-any
  return requests.map((r: any) => ({
    request_type: Number(r.request_type),
    address: String(r.address),
    amount: BigInt(r.amount),
  }));
}

function submit(env: Env, a: Record<string, unknown>, useAllowance: boolean): xdr.ScVal {
  extendInstance(env);
  const from = String(a.from), spender = String(a.spender), to = String(a.to);
  env.requireAuth(spender);
  if (from !== spender) env.requireAuth(from);
  return positionsOut(
    executeSubmit(env, from, spender, to, normRequests(a.requests as unknown[]), useAllowance),
  );
}

/** The lending pool contract module. */
export const lendingPool: ContractModule = {
  name: "lending_pool",
  spec: lendingPoolSpec,
  functions: {
    __constructor: (env, a) =>
      initialize(env, {
        admin: a.admin,
        name: a.name,
        oracle: a.oracle,
        bstop_rate: Number(a.bstop_rate),
        max_positions: Number(a.max_positions),
        min_collateral: BigInt(a.min_collateral),
        backstop_id: a.backstop_id,
        blnd_id: a.blnd_id,
      }),

    submit: (env, a) => submit(env, a, false),
    submit_with_allowance: (env, a) => submit(env, a, true),

    new_auction: (env, a) => {
      extendInstance(env);
      const type = Number(a.auction_type);
      const user = String(a.user);
      const percent = Number(a.percent);
      const data = createAuction(env, type, user, a.bid.map(String), a.lot.map(String), percent);
      emitNewAuction(env, type, user, percent, data);
      return auctionOut(data);
    },

    get_auction: (env, a) => auctionOut(getAuction(env, Number(a.auction_type), String(a.user))),

    del_auction: (env, a) => {
      extendInstance(env);
      const type = Number(a.auction_type);
      deleteStaleAuction(env, type, String(a.user));
      emitDeleteAuction(env, type, String(a.user));
    },

    bad_debt: (env, a) => {
      const user = String(a.user);
      const backstop = getInstanceAddress(env, keys.backstop(), "backstop");
      // The backstop path reads the Blend backstop's pool_data, which the local chain lacks.
      if (user === backstop) fail(PoolError.BadRequest);
      if (hasAuction(env, USER_LIQUIDATION, user)) fail(PoolError.AuctionInProgress);
      const pool = Pool.load(env);
      const state = User.load(env, user);
      if (!checkAndHandleUserBadDebt(env, pool, state)) fail(PoolError.BadRequest);
      state.store(env);
      pool.storeCachedReserves();
    },

    get_positions: (env, a) => positionsOut(getPositions(env, String(a.address))),

    get_reserve: (env, a) => {
      const asset = String(a.asset);
      const config: PoolConfig = getPoolConfig(env);
      const r = makeReserve(asset, getResConfig(env, asset), getResData(env, asset));
      accrue(r, config.bstop_rate, env.ledger.timestamp);
      return reserveStruct(asset, r.config, r.data, r.scalar);
    },

    get_reserve_list: (env) => getResList(env),
    get_config: (env) => encodePoolConfig(getPoolConfig(env)),
    get_admin: (env) => getInstanceAddress(env, keys.admin(), "admin"),
    // No emissions are configured on the local pool: both reads are None.
    get_reserve_emissions: () => null,
    get_user_emissions: () => null,

    queue_set_reserve: (env, a) => {
      extendInstance(env);
      queueSetReserve(env, String(a.asset), toReserveConfig(a.metadata));
    },
    cancel_set_reserve: (env, a) => {
      extendInstance(env);
      cancelSetReserve(env, String(a.asset));
    },
    set_reserve: (env, a) => setReserve(env, String(a.asset)),
    update_pool: (env, a) => {
      extendInstance(env);
      updatePool(
        env,
        Number(a.backstop_take_rate),
        Number(a.max_positions),
        BigInt(a.min_collateral),
      );
    },
    set_status: (env, a) => {
      extendInstance(env);
      setStatus(env, Number(a.pool_status));
    },
    propose_admin: (env, a) => {
      extendInstance(env);
      const admin = requireAdmin(env);
      const next = String(a.new_admin);
      env.storage.temporary.set(keys.propAdmin(), addr(next));
      env.storage.temporary.extendTtl(keys.propAdmin(), 17280 * 10, 17280 * 10);
      env.emit([sym("propose_admin"), addr(admin)], addr(next));
    },
    accept_admin: (env) => {
      extendInstance(env);
      const v = env.storage.temporary.get(keys.propAdmin());
      if (!v) fail(PoolError.UnauthorizedError);
      const next = address(v);
      env.requireAuth(next);
      const old = getInstanceAddress(env, keys.admin(), "admin");
      env.storage.instance.set(keys.admin(), addr(next));
      env.storage.temporary.remove(keys.propAdmin());
      env.emit([sym("set_admin"), addr(old)], addr(next));
    },
  },
};
