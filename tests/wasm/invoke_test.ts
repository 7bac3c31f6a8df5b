/**
 * Invocation behaviour of the real host through the node that no other suite pins: the event
 * stream of a call (diagnostic `fn_call`, the contract event, `fn_return`) as simulation and
 * getTransaction report it, re-entry refused, and the TTL extension of a missing entry.
 */
import assert from "node:assert/strict";
import { rpc, scValToNative, StrKey, xdr } from "@stellar/stellar-sdk";
import { startTestNode } from "@vigil/testing/localnet";
import { deployFixture } from "@vigil/testing/contracts/mod";
import { addr, call, eventsOf, prepare, simError, u32 } from "@vigil/testing/wasm/sac_rpc";

// deno-lint-ignore no-explicit-any
type Any = any;

Deno.test("events: fn_call, the contract event and fn_return in order; the event lands in getTransaction and getEvents", async () => {
  await using node = await startTestNode();
  const admin = await node.newAccount();
  const user = await node.newAccount();
  const c = await deployFixture(node, "counter", [admin.publicKey()]);
  const u = user.publicKey();
  const p = await prepare(node, u, c, "increment", [addr(u), u32(3)]);
  assert.ok(rpc.Api.isSimulationSuccess(p.sim));
  const kinds = (p.sim as rpc.Api.SimulateTransactionSuccessResponse).events.map((d: Any) => {
    const t = d.event.body.v0.topics;
    return `${d.event.type.name}:${scValToNative(t[0])}:${d.event.contractId ? "C" : "-"}`;
  });
  assert.deepEqual(kinds, ["diagnostic:fn_call:-", "contract:incr:C", "diagnostic:fn_return:C"]);
  const fnCall = ((p.sim as Any).events[0].event.body as Any).v0;
  assert.equal(StrKey.encodeContract(fnCall.topics[1].bytes.value ?? fnCall.topics[1].bytes), c);
  assert.equal(scValToNative(fnCall.topics[2]), "increment");
  assert.deepEqual(scValToNative(fnCall.data), [u, 3]);

  const got = await call(node, user, c, "increment", [addr(u), u32(3)]);
  assert.deepEqual(eventsOf(got), [{ contract: c, topics: ["incr", u], data: 3 }]);
  const served = await node.server.getEvents({
    startLedger: got.ledger,
    filters: [{ type: "contract", contractIds: [c] }],
  });
  assert.equal(served.events.length, 1);
  assert.equal(served.events[0].txHash, got.txHash);
  assert.deepEqual(served.events[0].topic.map((t) => scValToNative(t)), ["incr", u]);
});

Deno.test("re-entry is refused with Error(Context, InvalidAction)", async () => {
  await using node = await startTestNode();
  const admin = await node.newAccount();
  const [a, b] = [await deployFixture(node, "probe"), await deployFixture(node, "probe")];
  // a.reenter(b) → b.callback(a) → a again.
  assert.match(
    await simError(node, admin.publicKey(), a, "reenter", [addr(b)]),
    /Error\(Context, InvalidAction\)[\s\S]*re-entry is not allowed/,
  );
});

Deno.test("extend_ttl of a missing entry fails with Error(Storage, MissingValue)", async () => {
  await using node = await startTestNode();
  const admin = await node.newAccount();
  const a = await deployFixture(node, "probe");
  const ad = admin.publicKey();
  const key = xdr.ScVal.scvSymbol("nope");
  for (const tier of [1, 2]) {
    assert.match(
      await simError(node, ad, a, "bump", [u32(tier), key]),
      /Error\(Storage, MissingValue\)/,
    );
  }
  // Written first, the same extension succeeds.
  await call(node, admin, a, "put", [u32(1), key, u32(5)]);
  assert.equal(await simError(node, ad, a, "bump", [u32(1), key]), "");
});
