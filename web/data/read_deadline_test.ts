/**
 * The page read deadline composes: sequential chain reads made inside one
 * `withReadDeadline` share its budget instead of each waiting for its own request timeout.
 * The "RPC" is a TCP listener that accepts and never answers — what a stopped node looks like
 * from outside (the full stack with a SIGSTOPped node is in credentials_test.ts).
 */
import assert from "node:assert/strict";
import { timedRpcServer, withReadDeadline } from "./read_deadline.ts";

Deno.test("sequential reads share one page deadline; errors never quote credentials", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const held: Deno.Conn[] = [];
  const accepting = (async () => {
    try {
      for await (const c of listener) held.push(c);
    } catch { /* closed */ }
  })();
  try {
    const port = (listener.addr as Deno.NetAddr).port;
    const url = `http://user:s3cret-pw@127.0.0.1:${port}/rpc?apikey=k3y-987654321`;
    // Each request alone would wait 2 s; the page's budget is 300 ms for all of them.
    const server = timedRpcServer(url, 2000);
    const t0 = performance.now();
    const errors = await withReadDeadline(300, async () => {
      const out: string[] = [];
      for (let i = 0; i < 3; i++) {
        try {
          await server.getLatestLedger();
          out.push("answered");
        } catch (e) {
          out.push((e as Error).message);
        }
      }
      return out;
    });
    const ms = performance.now() - t0;
    assert.ok(ms < 1500, `three reads took ${ms.toFixed(0)} ms`);
    assert.equal(errors.length, 3);
    for (const e of errors) {
      assert.match(e, /^RPC getLatestLedger: /);
      assert.ok(!e.includes("s3cret-pw") && !e.includes("k3y-987654321"), e);
    }
    // Outside a page the request timeout alone applies.
    const t1 = performance.now();
    await assert.rejects(() => server.getLatestLedger(), /no answer within 2000 ms/);
    const alone = performance.now() - t1;
    assert.ok(alone >= 1900, `request timeout ${alone.toFixed(0)} ms`);
  } finally {
    listener.close();
    await accepting;
    for (const c of held) c.close();
  }
});
