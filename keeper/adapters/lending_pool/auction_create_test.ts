/**
 * Ensure-auction's pure parts: when no auction may be created, and the Blend numbers the keeper
 * sends and branches on, pinned against blend-sdk.
 */
import assert from "node:assert/strict";
import { AuctionType, ContractErrorType, RequestType } from "@blend-capital/blend-sdk";
import { StrKey } from "@stellar/stellar-sdk";
import type { SwapClient } from "../../dex/swap_client.ts";
import {
  bidAssets,
  conversionBlocker,
  creationBlocker,
  isNotLiquidatable,
  PoolErrors,
} from "./auction_create.ts";
import { ContractCallError } from "@vigil/soroban/errors";

const contract = () => StrKey.encodeContract(crypto.getRandomValues(new Uint8Array(32)));
const USDC = contract();
const XLM = contract();

Deno.test("the Blend numbers the keeper relies on are blend-sdk's", () => {
  // Pinned: the keeper sent and branched on these numbers before it used the SDK's enums.
  assert.equal(RequestType.WithdrawCollateral, 3);
  assert.equal(RequestType.Repay, 5);
  assert.equal(RequestType.FillUserLiquidationAuction, 6);
  assert.equal(AuctionType.Liquidation, 0);
  assert.equal(ContractErrorType.InvalidLiquidation, 1211);
  assert.equal(ContractErrorType.AuctionInProgress, 1212);
  assert.equal(ContractErrorType.InvalidLiqTooLarge, 1213);
  assert.equal(ContractErrorType.InvalidLiqTooSmall, 1214);
  assert.equal(ContractErrorType.InvalidDTokenBurnAmount, 1219);
  assert.deepEqual(PoolErrors, {
    InvalidLiquidation: 1211,
    AuctionInProgress: 1212,
    InvalidLiqTooLarge: 1213,
    InvalidLiqTooSmall: 1214,
    InvalidDTokenBurnAmount: 1219,
  });
});

Deno.test("creationBlocker: no debt, debt no flash can buy, and an unconvertible lot block a new auction", () => {
  const state = { reserveList: [USDC, XLM] };
  const pos = (liab: number[], coll: number[]) => ({
    liabilities: new Map(liab.map((i) => [i, 1n])),
    collateral: new Map(coll.map((i) => [i, 1n])),
  });
  const venues = (n: number) => ({ flashVenues: () => new Array(n) }) as unknown as SwapClient;
  const deps = { usdc: USDC, dex: venues(1) };
  assert.deepEqual(creationBlocker(state, pos([], [1]), deps), { kind: "no_auction_no_debt" });
  // XLM debt: bid when a venue usable inside the flash can buy XLM, skipped otherwise.
  assert.equal(creationBlocker(state, pos([1], [0]), deps), undefined, "XLM debt, a venue");
  assert.deepEqual(creationBlocker(state, pos([1], [0]), { usdc: USDC }), {
    kind: "debt_not_buyable",
    blocker: "no_dex",
  });
  assert.deepEqual(creationBlocker(state, pos([1], [0]), { usdc: USDC, dex: venues(0) }), {
    kind: "debt_not_buyable",
    blocker: "no_flash_venue",
  });
  // The bid: USDC always, other liabilities only when they can be bought.
  assert.deepEqual(bidAssets(state, pos([0, 1], [0]), deps), [USDC, XLM]);
  assert.deepEqual(bidAssets(state, pos([0, 1], [0]), { usdc: USDC }), [USDC]);
  assert.equal(creationBlocker(state, pos([0], [0]), { usdc: USDC }), undefined, "USDC lot");
  assert.equal(creationBlocker(state, pos([0], [1]), deps), undefined);
  assert.deepEqual(creationBlocker(state, pos([0], [1]), { usdc: USDC }), {
    kind: "lot_not_convertible",
    blocker: "no_dex",
  });
  assert.deepEqual(creationBlocker(state, pos([0], [1]), { usdc: USDC, dex: venues(0) }), {
    kind: "lot_not_convertible",
    blocker: "no_flash_venue",
  });
  assert.equal(conversionBlocker({ dex: venues(2) }), undefined);
});

Deno.test("isNotLiquidatable: the pool's InvalidLiquidation, and nothing else, makes a skip", () => {
  const err = (code: number) =>
    new ContractCallError(USDC, "new_auction", { type: "Contract", code }, "", "simulation");
  assert.equal(isNotLiquidatable(err(ContractErrorType.InvalidLiquidation)), true);
  assert.equal(isNotLiquidatable(err(ContractErrorType.AuctionInProgress)), false);
  assert.equal(isNotLiquidatable(new Error("Error(Contract, #1211)")), false);
});
