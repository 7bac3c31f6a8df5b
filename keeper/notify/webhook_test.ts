import assert from "node:assert/strict";
import { MAX_PER_MINUTE, webhookNotifier } from "./webhook.ts";

/** A local webhook receiver recording JSON bodies; `status` decides its answer. */
function receiver(opts: { status?: number; hangMs?: number } = {}) {
  const bodies: { text: string; content: string }[] = [];
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    bodies.push(await req.json());
    if (opts.hangMs) await new Promise((r) => setTimeout(r, opts.hangMs));
    return new Response("ok", { status: opts.status ?? 200 });
  });
  const url = `http://127.0.0.1:${server.addr.port}/services/T0/B0/hooksecret123`;
  return { bodies, url, close: () => server.shutdown() };
}

Deno.test("webhook: Slack and Discord fields, name prefix, secrets and credentialed URLs redacted", async () => {
  const r = receiver();
  const errors: string[] = [];
  const n = webhookNotifier(r.url, { name: "keeper-1", onError: (m) => errors.push(m) });
  const secret = "SCZANGBA5YHTNYVVV4C3U252E2B6P6F5T3U6MM63WBSBZATAQI3EBTQ4";
  n.notify({
    kind: "fill",
    text: `liquidation filled via https://user:pw@rpc.example/?apikey=abcdef123456 ${secret}`,
  });
  await n.close();
  await r.close();
  assert.equal(r.bodies.length, 1);
  const { text, content } = r.bodies[0];
  assert.equal(text, content);
  assert.ok(text.startsWith("[keeper-1] liquidation filled"), text);
  for (const leak of [secret, "pw@", "abcdef123456"]) assert.ok(!text.includes(leak), text);
  assert.deepEqual(errors, []);
});

Deno.test("webhook: duplicates within the window dropped, a burst capped per minute", async () => {
  const r = receiver();
  let t = 0;
  const n = webhookNotifier(r.url, { now: () => t });
  n.notify({ kind: "low_balance", key: "low", text: "low balance 9 XLM", dedupMs: 60_000 });
  n.notify({ kind: "low_balance", key: "low", text: "low balance 8 XLM", dedupMs: 60_000 });
  t = 61_000; // window passed: told again
  n.notify({ kind: "low_balance", key: "low", text: "low balance 7 XLM", dedupMs: 60_000 });
  t = 200_000;
  for (let i = 0; i < MAX_PER_MINUTE + 5; i++) n.notify({ kind: "fill", text: `fill ${i}` });
  t = 261_000; // a new minute: the next one says how many were dropped
  n.notify({ kind: "stop", text: "stopped" });
  await n.close(10_000);
  await r.close();
  const texts = r.bodies.map((b) => b.text);
  assert.deepEqual(texts.slice(0, 2), ["low balance 9 XLM", "low balance 7 XLM"]);
  assert.equal(texts.filter((x) => x.startsWith("fill ")).length, MAX_PER_MINUTE);
  assert.equal(texts.at(-1), "stopped (5 earlier notifications dropped by the rate limit)");
});

Deno.test("webhook: a failing or hanging endpoint is reported by origin only and never blocks", async () => {
  const bad = receiver({ status: 404 });
  const errors: string[] = [];
  const n = webhookNotifier(bad.url, { onError: (m) => errors.push(m) });
  n.notify({ kind: "start", text: "started" });
  await n.close();
  await bad.close();
  assert.equal(errors.length, 1);
  assert.match(errors[0], /^webhook http:\/\/127\.0\.0\.1:\d+ answered HTTP 404$/);
  assert.ok(!errors[0].includes("hooksecret123"));

  const slow = receiver({ hangMs: 2_000 });
  const errs: string[] = [];
  const m = webhookNotifier(slow.url, { onError: (e) => errs.push(e), postTimeoutMs: 100 });
  const t0 = performance.now();
  m.notify({ kind: "stop", text: "stopped" });
  await m.close(5_000);
  assert.ok(performance.now() - t0 < 1_500, "the POST deadline ended it");
  assert.match(errs[0] ?? "", /failed: TimeoutError/);
  await slow.close();
});
