import assert from "node:assert/strict";
import {
  applyOrder,
  canonicalStages,
  compareXored,
  type OrderItem,
  parallelApplyOrder,
  sequentialApplyOrder,
} from "./apply_order.ts";
import { sha256 } from "./util.ts";

const enc = (s: string) => new TextEncoder().encode(s);
const item = (name: string, source: string, seqNum: bigint, soroban = false) => ({
  name,
  fullHash: sha256(enc(name)),
  source,
  seqNum,
  soroban,
});
const names = (xs: { name: string }[]) => xs.map((x) => x.name);

/** Shuffles with a small deterministic generator (arrival orders). */
function shuffled<T>(xs: readonly T[], seed: number): T[] {
  const out = [...xs];
  let s = seed;
  for (let i = out.length - 1; i > 0; i--) {
    s = (s * 1103515245 + 12345) & 0x7fffffff;
    const j = s % (i + 1);
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

Deno.test("apply order: deterministic for a set, whatever the arrival order", () => {
  const txs = [
    item("a1", "A", 1n),
    item("b1", "B", 7n),
    item("c1", "C", 3n),
    item("s1", "S", 1n, true),
    item("t1", "T", 1n, true),
    item("u1", "U", 5n, true),
  ];
  const setHash = sha256(enc("set"));
  const first = names(applyOrder(txs, setHash));
  for (let seed = 1; seed < 20; seed++) {
    assert.deepEqual(names(applyOrder(shuffled(txs, seed), setHash)), first);
  }
  // Classic phase first, then Soroban.
  assert.deepEqual(first.slice(0, 3).sort(), ["a1", "b1", "c1"]);
  assert.deepEqual(first.slice(3).sort(), ["s1", "t1", "u1"]);
});

Deno.test("apply order: one batch is sorted by full hash XOR the set hash", () => {
  const txs = [item("a", "A", 1n), item("b", "B", 1n), item("c", "C", 1n), item("d", "D", 1n)];
  const setHash = sha256(enc("x"));
  const got = sequentialApplyOrder(txs, setHash);
  for (let i = 1; i < got.length; i++) {
    assert.ok(compareXored(got[i - 1].fullHash, got[i].fullHash, setHash) < 0);
  }
  // A zero set hash leaves plain hash order.
  const zero = sequentialApplyOrder(txs, new Uint8Array(32));
  assert.deepEqual(
    names(zero),
    names([...txs].sort((a, b) => Buffer.compare(a.fullHash, b.fullHash))),
  );
});

Deno.test("apply order: two accounts' transactions come out in either order, by set hash", () => {
  const txs = [item("x", "X", 1n), item("y", "Y", 1n)];
  const seen = new Set<string>();
  for (let i = 0; i < 16; i++) {
    const setHash = sha256(enc(`set ${i}`));
    seen.add(names(sequentialApplyOrder(txs, setHash)).join(","));
    seen.add(names(applyOrder(txs.map((t) => ({ ...t, soroban: true })), setHash)).join(","));
  }
  assert.deepEqual([...seen].sort(), ["x,y", "y,x"]);
});

Deno.test("apply order: an account's transactions keep sequence order, one per batch", () => {
  const txs = [
    item("a3", "A", 3n),
    item("a1", "A", 1n),
    item("a2", "A", 2n),
    item("b9", "B", 9n),
    item("c4", "C", 4n),
    item("c5", "C", 5n),
  ];
  for (let i = 0; i < 16; i++) {
    const got = names(sequentialApplyOrder(shuffled(txs, i + 1), sha256(enc(`h${i}`))));
    const pos = (n: string) => got.indexOf(n);
    assert.ok(pos("a1") < pos("a2") && pos("a2") < pos("a3"), got.join());
    assert.ok(pos("c4") < pos("c5"), got.join());
    // Batch 0 = {a1, b9, c4}, batch 1 = {a2, c5}, batch 2 = {a3}.
    assert.deepEqual(got.slice(0, 3).sort(), ["a1", "b9", "c4"]);
    assert.deepEqual(got.slice(3, 5).sort(), ["a2", "c5"]);
    assert.equal(got[5], "a3");
  }
});

Deno.test("apply order: parallel phase sorts clusters by XOR, stages by their first tx, keeps cluster order", () => {
  const [p, q, r, s, t] = ["p", "q", "r", "s", "t"].map((n) => item(n, n, 1n, true));
  const stages: (OrderItem & { name: string })[][][] = [[[p, q], [r]], [[s, t]]];
  const setHash = sha256(enc("stages"));
  const got = parallelApplyOrder(stages, setHash);
  const xor = (a: OrderItem, b: OrderItem) => compareXored(a.fullHash, b.fullHash, setHash);
  for (const stage of got) {
    for (const c of stage) for (let i = 1; i < c.length; i++) assert.ok(xor(c[i - 1], c[i]) < 0);
    // Clusters in canonical order: by their (hash-order) first transaction.
    const canon = canonicalStages([stage])[0].map((c) => c.map((x) => x.name).sort().join());
    assert.deepEqual(stage.map((c) => c.map((x) => x.name).sort().join()), canon);
  }
  assert.ok(xor(got[0][0][0], got[1][0][0]) < 0);
});
