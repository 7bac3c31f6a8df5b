import assert from "node:assert/strict";
import { parseEvent, splitLine } from "./LiveLog.tsx";

const clock = {
  anchor: {
    wall: Date.parse("2026-01-01T12:00:10Z"),
    chain: Date.parse("2026-01-01T12:40:00Z") / 1000,
    seq: 1000,
  },
  rate: 5,
  secsPerLedger: 1,
};

Deno.test("splitLine: a keeper line's wall time is shown on the chain clock", () => {
  const p = splitLine(
    { id: 1, ts: null, level: null, text: "2026-01-01T12:00:08.000Z INFO filled GB4Y…WYKQ" },
    clock,
    clock.anchor.wall,
  );
  // 2 s of wall time before the anchor is 10 s of chain time before 12:40:00.
  assert.deepEqual(p, { time: "12:39:50", level: "info", msg: "filled GB4Y…WYKQ", chain: true });
});

Deno.test("splitLine: a line naming its ledger takes that ledger's close time", () => {
  const p = splitLine(
    { id: 2, ts: null, level: null, text: "2026-01-01T12:00:09.000Z INFO fill ledger=990 ok" },
    clock,
    clock.anchor.wall,
  );
  assert.equal(p.time, "12:39:50");
});

Deno.test("splitLine: never a time after the chain's now; the wall time without a clock", () => {
  const late = splitLine(
    { id: 3, ts: null, level: null, text: "2026-01-01T12:00:30.000Z WARN skew" },
    clock,
    clock.anchor.wall,
  );
  assert.equal(late.time, "12:40:00");
  const raw = splitLine({ id: 4, ts: "2026-01-01T12:00:08Z", level: "info", text: "x" });
  assert.deepEqual(raw, { time: "12:00:08", level: "info", msg: "x", chain: false });
});

Deno.test("parseEvent: the JSON stream's plain sentence and detailed line; the text stream as is", () => {
  const j = parseEvent(
    JSON.stringify({
      id: 7,
      ts: "2026-01-01T12:00:08.000Z",
      level: "info",
      text: "2026-01-01T12:00:08.000Z INFO liquidation filled: G… drew=30041418453",
      plain: "keeper-1 filled GB4Y…WYKQ: +205.21 USDC in 1 flash",
    }),
    7,
  );
  assert.equal(j.plain, "keeper-1 filled GB4Y…WYKQ: +205.21 USDC in 1 flash");
  assert.match(j.text, /drew=30041418453/);
  assert.equal(j.level, "info");
  const t = parseEvent("2026-01-01T12:00:08.000Z INFO something", 8);
  assert.deepEqual(t, {
    id: 8,
    ts: null,
    level: null,
    text: "2026-01-01T12:00:08.000Z INFO something",
  });
});
