/**
 * `keeperEnv` of a world: one pool stays LENDING_POOL alone (tests override it), several go to
 * LENDING_POOLS with LENDING_POOL empty; overrides still win.
 */
import assert from "node:assert/strict";
import { Keypair } from "@stellar/stellar-sdk";
import { keeperEnv, type World } from "./keeper_fixture.ts";

const id = (c: string) => `C${c.repeat(55)}`;

function world(pools: string[]): World {
  return {
    pool: pools[0],
    pools,
    registry: id("R"),
    vault: id("V"),
    usdc: id("U"),
    liquidator: id("L"),
    node: {
      rpcUrl: "http://127.0.0.1:1/rpc",
      networkPassphrase: "Standalone Network ; February 2017",
    },
    market: { contracts: { primary_dex_router: id("P"), fallback_dex_router: id("F") } },
  } as unknown as World;
}

Deno.test("keeperEnv: LENDING_POOL for one pool, LENDING_POOLS for several, overrides win", () => {
  const k = Keypair.random();
  const one = keeperEnv(world([id("A")]), k);
  assert.equal(one.LENDING_POOL, id("A"));
  assert.equal(one.LENDING_POOLS, undefined);

  const two = keeperEnv(world([id("A"), id("B")]), k);
  assert.equal(two.LENDING_POOLS, `${id("A")},${id("B")}`);
  assert.equal(two.LENDING_POOL, "");

  assert.equal(keeperEnv(world([id("A")]), k, { LENDING_POOL: "" }).LENDING_POOL, "");
  assert.equal(
    keeperEnv(world([id("A"), id("B")]), k, { LENDING_POOLS: id("B") }).LENDING_POOLS,
    id("B"),
  );
});
