/**
 * Share books of the stand-ins that issue shares, in-process (tests/protocols/helpers/
 * dex_fake_host.ts): the Soroswap pair's LP token and the DeFindex vault's share token
 * (`transfer`: balances move, the total stays, the SEP-41 event, each contract's overdraft
 * failure), the Phoenix pool's LP burn and the HODL strategy's share burn on an overdraft.
 */
import assert from "node:assert/strict";
import { scValToNative } from "@stellar/stellar-sdk";
import { ContractError } from "../../contracts/sdk.ts";
import { asDexHost, FakeHost, fakeToken } from "./helpers/dex_fake_host.ts";
import { deployDexes } from "../../contracts/dex/deploy.ts";
import { deployAllocationVault } from "../../contracts/allocation_vault/deploy.ts";

const E7 = 10_000_000n;

async function dexes() {
  const h = new FakeHost();
  const admin = h.account();
  const usdc = h.deploy(fakeToken, { symbol: "USDC" });
  const xlm = h.deploy(fakeToken, { symbol: "native" });
  const d = await deployDexes(asDexHost(h), {
    admin,
    tokens: { usdc, xlm },
    liquidity: [{ a: "xlm", b: "usdc", amountA: 1_000_000n * E7, amountB: 120_000n * E7 }],
  });
  return { h, admin, pair: d.soroswap_pairs["xlm/usdc"], pool: d.phoenix_pools["xlm/usdc"] };
}

/** The error a root invocation throws (a plain Error is a trap, not a contract error). */
function thrown(f: () => unknown): Error {
  try {
    f();
  } catch (e) {
    return e as Error;
  }
  throw new Error("did not throw");
}

/** `[from, to, amount]` of the last `transfer` event `id` emitted. */
function lastTransfer(h: FakeHost, id: string): [string, string, bigint] {
  const ev = h.events.filter((e) => e.contract === id && scValToNative(e.topics[0]) === "transfer")
    .at(-1)!;
  return [scValToNative(ev.topics[1]), scValToNative(ev.topics[2]), scValToNative(ev.data)];
}

Deno.test("Soroswap LP transfer moves shares, keeps the total, traps on overdraft", async () => {
  const { h, admin, pair } = await dexes();
  const bob = h.account();
  const lp = h.invoke<bigint>(pair, "balance", { id: admin });
  const total = h.invoke<bigint>(pair, "total_shares");
  assert.ok(lp > 0n);
  h.invoke(pair, "transfer", { from: admin, to: bob, amount: 123n });
  assert.equal(h.invoke(pair, "balance", { id: admin }), lp - 123n);
  assert.equal(h.invoke(pair, "my_balance", { id: bob }), 123n);
  assert.equal(h.invoke(pair, "total_shares"), total);
  assert.deepEqual(lastTransfer(h, pair), [admin, bob, 123n]);
  assert.ok(h.auths.some((a) => a.address === admin && a.contract === pair && a.fn === "transfer"));
  const over = thrown(() => h.invoke(pair, "transfer", { from: bob, to: admin, amount: 124n }));
  assert.ok(!(over instanceof ContractError));
  assert.equal(over.message, "insufficient balance");
  const neg = thrown(() => h.invoke(pair, "transfer", { from: bob, to: admin, amount: -1n }));
  assert.equal(neg.message, "negative amount is not allowed");
  assert.equal(h.invoke(pair, "my_balance", { id: bob }), 123n);
});

Deno.test("Phoenix pool: withdrawing more LP shares than held traps, books unchanged", async () => {
  const { h, admin, pool } = await dexes();
  const mine = h.invoke<bigint>(pool, "balance", { id: admin });
  const total = h.invoke<bigint>(pool, "query_total_issued_lp");
  assert.ok(mine > 0n && total === mine + 1000n);
  const args = { sender: admin, min_a: 0n, min_b: 0n, deadline: null, auto_unstake: null };
  const over = thrown(() =>
    h.invoke(pool, "withdraw_liquidity", { ...args, share_amount: mine + 1n })
  );
  assert.ok(!(over instanceof ContractError));
  assert.equal(over.message, "Pool: insufficient LP share balance");
  assert.equal(h.invoke(pool, "query_total_issued_lp"), total);
  h.invoke(pool, "withdraw_liquidity", { ...args, share_amount: mine });
  assert.equal(h.invoke(pool, "balance", { id: admin }), 0n);
  assert.equal(h.invoke(pool, "query_total_issued_lp"), 1000n);
});

Deno.test("DeFindex vault share transfer and HODL strategy overdrafts fail 111 / 412", async () => {
  const h = new FakeHost();
  const manager = h.account();
  const alice = h.account();
  const bob = h.account();
  const usdc = h.deploy(fakeToken, { symbol: "USDC" });
  h.invoke(usdc, "mint", { to: alice, amount: 1_000n * E7 });
  const d = await deployAllocationVault(asDexHost(h), {
    asset: usdc,
    manager,
    seed: { from: alice, amount: 1_000n * E7 },
    initialAllocation: [5000, 5000],
  });
  const v = d.allocation_vault;
  const shares = h.invoke<bigint>(v, "balance", { id: alice });
  const supply = h.invoke<bigint>(v, "total_supply");
  h.invoke(v, "transfer", { from: alice, to: bob, amount: 10n * E7 });
  assert.equal(h.invoke(v, "balance", { id: alice }), shares - 10n * E7);
  assert.equal(h.invoke(v, "balance", { id: bob }), 10n * E7);
  assert.equal(h.invoke(v, "total_supply"), supply);
  assert.deepEqual(lastTransfer(h, v), [alice, bob, 10n * E7]);
  assert.equal(h.invokeError(v, "transfer", { from: bob, to: alice, amount: 10n * E7 + 1n }), 111);
  const neg = thrown(() => h.invoke(v, "transfer", { from: bob, to: alice, amount: -1n }));
  assert.equal(neg.message, "negative amount is not allowed");

  // A strategy holder withdrawing one unit more than its shares are worth: 412.
  const s = d.strategies[0];
  assert.equal(h.invokeError(s, "withdraw", { amount: 1n, from: bob, to: bob }), 412);
  h.invoke(usdc, "mint", { to: bob, amount: 50n * E7 });
  h.invoke(usdc, "approve", { from: bob, spender: s, amount: 50n * E7, expiration_ledger: 1000 });
  assert.equal(h.invoke(s, "deposit", { amount: 50n * E7, from: bob }), 50n * E7);
  assert.equal(h.invokeError(s, "withdraw", { amount: 50n * E7 + 1n, from: bob, to: bob }), 412);
  assert.equal(h.invoke(s, "withdraw", { amount: 50n * E7, from: bob, to: bob }), 0n);
  assert.equal(h.invoke(s, "balance", { from: v }), 500n * E7);
});
