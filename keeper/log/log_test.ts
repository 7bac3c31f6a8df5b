import assert from "node:assert/strict";
import { Keypair, StrKey } from "@stellar/stellar-sdk";
import fc from "fast-check";
import { Logger, REDACTED, redactSecrets } from "./logger.ts";
import { defaultPlain, peopleAmount, shortAddress, textLine } from "./format.ts";
import { Ring } from "./ring.ts";

const SECRET = Keypair.random().secret();

Deno.test("redactSecrets replaces a valid secret seed wherever it appears", () => {
  assert.equal(redactSecrets(SECRET), REDACTED);
  assert.equal(redactSecrets(`KEEPER_SECRET=${SECRET}`), `KEEPER_SECRET=${REDACTED}`);
  assert.equal(redactSecrets(`"${SECRET}"`), `"${REDACTED}"`);
  // Glued to other base32 text (no separator): found by checksum.
  assert.equal(redactSecrets(`ABC${SECRET}XYZ`), `ABC${REDACTED}XYZ`);
  assert.equal(redactSecrets(`${SECRET} and ${SECRET}`), `${REDACTED} and ${REDACTED}`);
});

Deno.test("redactSecrets also hides a lone S-token with a bad checksum", () => {
  const typo = SECRET.slice(0, 55) + (SECRET[55] === "A" ? "B" : "A");
  assert.equal(StrKey.isValidEd25519SecretSeed(typo), false);
  assert.equal(redactSecrets(`secret ${typo}.`), `secret ${REDACTED}.`);
});

Deno.test("redactSecrets leaves addresses and ordinary text alone", () => {
  const g = Keypair.random().publicKey();
  const c = StrKey.encodeContract(new Uint8Array(32).fill(7));
  const muxed = StrKey.encodeMed25519PublicKey(new Uint8Array(40).fill(3));
  for (const s of [g, c, muxed, "SSSS", "plain text", `${g},${c}`, "S".repeat(55)]) {
    assert.equal(redactSecrets(s), s);
  }
});

Deno.test("redactSecrets: property — a random seed inside random text never survives", () => {
  fc.assert(
    fc.property(
      fc.string(),
      fc.string(),
      fc.uint8Array({ minLength: 32, maxLength: 32 }),
      (a, b, raw) => {
        const seed = StrKey.encodeEd25519SecretSeed(raw);
        const out = redactSecrets(a + seed + b);
        assert.ok(!out.includes(seed));
      },
    ),
    { numRuns: 300 },
  );
});

Deno.test("Ring keeps the newest items and answers after(id)", () => {
  const r = new Ring<{ id: number }>(3);
  assert.deepEqual(r.after(5), { lines: [], gap: false });
  for (let id = 10; id <= 14; id++) r.push({ id });
  assert.deepEqual(r.recent().map((x) => x.id), [12, 13, 14]);
  assert.deepEqual(r.recent(2).map((x) => x.id), [13, 14]);
  assert.deepEqual(r.after(12), { lines: [{ id: 13 }, { id: 14 }], gap: false });
  assert.deepEqual(r.after(11), { lines: [{ id: 12 }, { id: 13 }, { id: 14 }], gap: false });
  assert.deepEqual(r.after(14), { lines: [], gap: false });
  // Evicted successors, or an id from another process: everything held, flagged as a gap.
  assert.equal(r.after(5).gap, true);
  assert.equal(r.after(5).lines.length, 3);
  assert.equal(r.after(99).gap, true);
  assert.throws(() => r.push({ id: 20 }), RangeError);
});

Deno.test("Logger writes JSON lines, keeps human lines with increasing ids", () => {
  const sunk: string[] = [];
  const log = new Logger({
    sink: (l) => sunk.push(l),
    idBase: 100,
    base: { keeper: "k1" },
    now: () => new Date("2026-01-02T03:04:05.000Z"),
  });
  log.info("hello world", { amount: 12345678901234567890n, ok: true, who: "G A" });
  log.debug("not shown");
  log.warn("second\nline", { err: new Error("boom") });
  assert.equal(sunk.length, 2);
  const j = JSON.parse(sunk[0]);
  assert.deepEqual(j, {
    ts: "2026-01-02T03:04:05.000Z",
    level: "info",
    msg: "hello world",
    id: 101,
    keeper: "k1",
    amount: "12345678901234567890",
    ok: true,
    who: "G A",
    plain: "hello world",
  });
  const lines = log.recent();
  assert.deepEqual(lines.map((l) => l.id), [101, 102]);
  assert.equal(
    lines[0].text,
    '2026-01-02T03:04:05.000Z INFO hello world amount=12345678901234567890 ok=true who="G A"',
  );
  assert.ok(!lines[1].text.includes("\n"));
  assert.match(lines[1].text, /WARN second ⏎ line err="Error: boom"/);
  assert.deepEqual(JSON.parse(sunk[1]).err, { name: "Error", message: "boom" });
  assert.equal(log.lastId, 102);
});

Deno.test("Logger never emits a secret: message, fields, errors, keypairs, nested values", () => {
  const sunk: string[] = [];
  const log = new Logger({ sink: (l) => sunk.push(l) });
  const kp = Keypair.fromSecret(SECRET);
  const seen: string[] = [];
  const unsub = log.subscribe((l) => seen.push(l.text));
  log.error(`bad ${SECRET}`, {
    s: SECRET,
    kp,
    nested: { deep: [SECRET, { x: SECRET }] },
    err: new Error(`tx failed for ${SECRET}`, { cause: new Error(SECRET) }),
    raw: kp.rawSecretKey(),
    ts: SECRET, // reserved key gets renamed, still redacted
  });
  unsub();
  const all = [...sunk, ...seen, ...log.recent().map((l) => JSON.stringify(l))].join("\n");
  assert.ok(!all.includes(SECRET), "secret leaked");
  assert.ok(all.includes(kp.publicKey()), "keypair should render as its public key");
  assert.ok(all.includes(REDACTED));
  assert.ok(JSON.parse(sunk[0]).field_ts === REDACTED);
});

Deno.test("Logger: non-finite numbers, cycles and child fields", () => {
  const sunk: string[] = [];
  const log = new Logger({ sink: (l) => sunk.push(l) });
  const a: Record<string, unknown> = { n: NaN, i: -Infinity };
  a.self = a;
  log.child({ adapter: "pool" }).child({ task: 3 }).info("x", { a });
  const j = JSON.parse(sunk[0]);
  assert.equal(j.adapter, "pool");
  assert.equal(j.task, 3);
  assert.deepEqual(j.a, { n: "NaN", i: "-Infinity", self: "[circular]" });
});

Deno.test("Logger subscribers get every line; a throwing subscriber does not break others", () => {
  const log = new Logger({ sink: null });
  const got: number[] = [];
  log.subscribe(() => {
    throw new Error("bad subscriber");
  });
  const unsub = log.subscribe((l) => got.push(l.id));
  log.info("a");
  log.info("b");
  unsub();
  log.info("c");
  assert.equal(got.length, 2);
  assert.equal(got[1], got[0] + 1);
  assert.equal(log.subscriberCount, 1);
});

Deno.test("format: addresses shortened, amounts in 2 decimals, the error in the default sentence", () => {
  const g = Keypair.random().publicKey();
  assert.equal(shortAddress(g), `${g.slice(0, 4)}…${g.slice(-4)}`);
  const c = StrKey.encodeContract(new Uint8Array(32).fill(7));
  assert.equal(shortAddress(c), `${c.slice(0, 4)}…${c.slice(-4)}`);
  assert.equal(shortAddress("not an address"), "not an address");
  assert.equal(peopleAmount(2052145678n, true), "+205.21");
  assert.equal(peopleAmount(2052150000n), "205.22"); // half rounds away from zero
  assert.equal(peopleAmount(12_345_678_9000000n), "12,345,678.90");
  assert.equal(peopleAmount(0n, true), "+0.00");
  assert.equal(peopleAmount(-15_000_000n), "-1.50");
  assert.equal(peopleAmount(-1n), "0.00"); // rounds to zero: no "-0.00"
  assert.equal(
    defaultPlain("registration failed", { err: { name: "RpcError", message: "refused" } }),
    "registration failed: refused",
  );
  assert.equal(
    defaultPlain("x failed: refused", { err: { message: "refused" } }),
    "x failed: refused",
  );
  assert.equal(defaultPlain("tick", { n: 1 }), "tick");
  // Info lines say what happened: addresses shortened; warnings keep them whole (to act on).
  const m = `auction created for ${g} on ${c}`;
  assert.equal(
    defaultPlain(m, {}, true),
    `auction created for ${shortAddress(g)} on ${shortAddress(c)}`,
  );
  assert.equal(defaultPlain(m, {}), m);
  assert.equal(
    textLine({ ts: "2026-01-02T12:32:08.123Z", level: "info", plain: "keeper-1 filled" }),
    "12:32:08 keeper-1 filled",
  );
  assert.equal(
    textLine({ ts: "2026-01-02T12:32:08.123Z", level: "warn", plain: "careful" }),
    "12:32:08 WARN careful",
  );
});

Deno.test("Logger: LOG_FORMAT=text writes the plain sentence; JSON keeps every detail and the sentence", () => {
  const now = () => new Date("2026-01-02T03:04:05.000Z");
  const text: string[] = [];
  const json: string[] = [];
  const t = new Logger({ sink: (l) => text.push(l), format: "text", now, base: { keeper: "k1" } });
  const j = new Logger({ sink: (l) => json.push(l), now, base: { keeper: "k1" } });
  for (const log of [t, j]) {
    log.info("liquidation filled: GX", { plain: "k1 filled GX…: +1.00 USDC in 1 flash", drew: 5n });
    log.warn("registration failed", { err: new Error("connection refused") });
    log.info("with a secret", { plain: `oops ${SECRET}` });
    log.info(`found ${"G".repeat(56)}`);
  }
  assert.deepEqual(text, [
    "03:04:05 k1 filled GX…: +1.00 USDC in 1 flash",
    "03:04:05 WARN registration failed: connection refused",
    `03:04:05 oops ${REDACTED}`,
    "03:04:05 found GGGG…GGGG",
  ]);
  const first = JSON.parse(json[0]);
  assert.equal(first.msg, "liquidation filled: GX");
  assert.equal(first.drew, "5");
  assert.equal(first.plain, "k1 filled GX…: +1.00 USDC in 1 flash");
  assert.equal(JSON.parse(json[1]).plain, "registration failed: connection refused");
  // The ring keeps both the detailed line and the sentence; the sentence is never a field.
  const line = j.recent()[0];
  assert.equal(line.plain, "k1 filled GX…: +1.00 USDC in 1 flash");
  assert.match(line.text, /INFO liquidation filled: GX drew=5$/);
  assert.ok(!("plain" in line.fields));
  assert.ok(!json.join("\n").includes(SECRET));
});
