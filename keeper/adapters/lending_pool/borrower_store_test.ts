/**
 * The KEEPER_STATE_DIR file: a round trip, atomic replacement, and every file that must be
 * ignored (rescan) rather than trusted: corrupt, another version, pool or network.
 */
// @ts-ignore: the Blend SDK's stellar-sdk 14 graph resolves @types/node 12, which lacks node:assert/strict
import assert from "node:assert/strict";
import { Keypair, StrKey } from "@stellar/stellar-sdk";
import { BorrowerStore, networkDirName, STORE_VERSION } from "./borrower_store.ts";
import type { IndexSnapshot } from "./discovery.ts";

const POOL = "CDMLFMKMMD7MWZP3FKUBZPVHTUEDLSX4BYGYKH4GCESXYHS3IHQ4EIG4";
const OTHER_POOL = StrKey.encodeContract(new Uint8Array(32).fill(7));
const TESTNET = "Test SDF Network ; September 2015";
const MAINNET = "Public Global Stellar Network ; September 2015";

function snapshot(n = 3): IndexSnapshot {
  const owners = Array.from({ length: n }, () => Keypair.random().publicKey());
  return {
    owners,
    auctions: { [owners[0]]: { block: 1234, percent: 50 } },
    cursor: "0000042949672960000-0000000001",
    nextStart: null,
  };
}

Deno.test("BorrowerStore: round trip under <dir>/<network>/<pool>.json; missing file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = new BorrowerStore(dir, TESTNET, POOL);
    assert.equal(store.path, `${dir}/${networkDirName(TESTNET)}/${POOL}.json`);
    assert.deepEqual(await store.load(), { kind: "missing", path: store.path });
    const s = snapshot();
    await store.save(s, new Date("2026-11-28T00:00:00Z"));
    const r = await store.load();
    assert.equal(r.kind, "loaded");
    if (r.kind !== "loaded") return;
    assert.deepEqual(new Set(r.snapshot.owners), new Set(s.owners));
    assert.deepEqual(r.snapshot.auctions, s.auctions);
    assert.equal(r.snapshot.cursor, s.cursor);
    assert.equal(r.snapshot.nextStart, null);
    assert.equal(r.savedAt, "2026-11-28T00:00:00.000Z");
    // A start ledger instead of a cursor round-trips too.
    await store.save({ ...s, cursor: null, nextStart: 77 });
    const r2 = await store.load();
    assert.ok(r2.kind === "loaded" && r2.snapshot.cursor === null && r2.snapshot.nextStart === 77);
    // Only the owner's eyes: the file holds no secret, but addresses are the operator's business.
    assert.equal((await Deno.stat(store.path)).mode! & 0o777, 0o600);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("BorrowerStore: a save replaces the file by rename (a reader of the old file keeps it whole), no temporary left", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = new BorrowerStore(dir, TESTNET, POOL);
    const first = snapshot(2);
    await store.save(first);
    const before = await Deno.readTextFile(store.path);
    const old = await Deno.open(store.path, { read: true }); // holds the old inode
    try {
      await store.save(snapshot(500));
      // Written in place, the old handle would now read the new (longer) content.
      const buf = new Uint8Array(before.length + 10);
      const n = await old.read(buf);
      assert.equal(new TextDecoder().decode(buf.subarray(0, n ?? 0)), before);
    } finally {
      old.close();
    }
    const r = await store.load();
    assert.ok(r.kind === "loaded" && r.snapshot.owners.length === 500);
    const names = [...Deno.readDirSync(`${dir}/${networkDirName(TESTNET)}`)].map((e) => e.name);
    assert.deepEqual(names, [`${POOL}.json`], "no temporary file left behind");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("BorrowerStore: corrupt, other-version, other-pool, other-network and malformed files are ignored with a reason", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const store = new BorrowerStore(dir, TESTNET, POOL);
    const good = { version: STORE_VERSION, network: TESTNET, pool: POOL, ...snapshot() };
    const cases: [string, string | Record<string, unknown>, RegExp][] = [
      ["truncated", JSON.stringify(good).slice(0, 40), /not valid JSON/],
      ["array", "[]", /not an object/],
      ["version", { ...good, version: 2 }, /version 2, expected 1/],
      ["no version", { ...good, version: undefined }, /version undefined/],
      ["pool", { ...good, pool: OTHER_POOL }, /another pool/],
      ["network", { ...good, network: MAINNET }, /another network/],
      ["owners", { ...good, owners: ["GNOTANADDRESS"] }, /malformed owners/],
      ["cursor", { ...good, cursor: "../../etc" }, /malformed cursor/],
      ["nextStart", { ...good, cursor: null, nextStart: -1 }, /malformed nextStart/],
      ["auctions", { ...good, auctions: { x: { block: 1, percent: 2 } } }, /malformed auctions/],
    ];
    await Deno.mkdir(`${dir}/${networkDirName(TESTNET)}`, { recursive: true });
    for (const [name, content, reason] of cases) {
      await Deno.writeTextFile(
        store.path,
        typeof content === "string" ? content : JSON.stringify(content),
      );
      const r = await store.load();
      assert.equal(r.kind, "invalid", name);
      assert.match(r.kind === "invalid" ? r.reason : "", reason, name);
    }
    // The network is in the path too: a testnet file is never even read by a mainnet keeper.
    await Deno.writeTextFile(store.path, JSON.stringify(good));
    const mainnet = new BorrowerStore(dir, MAINNET, POOL);
    assert.notEqual(mainnet.path, store.path);
    assert.equal((await mainnet.load()).kind, "missing");
    assert.equal((await store.load()).kind, "loaded");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("BorrowerStore: an unwritable state dir makes save throw (the adapter warns) and leaves no file", async () => {
  const dir = await Deno.makeTempDir();
  try {
    // A regular file where the directory should be: fails even for root.
    await Deno.writeTextFile(`${dir}/state`, "");
    const store = new BorrowerStore(`${dir}/state`, TESTNET, POOL);
    await assert.rejects(store.save(snapshot()));
    const r = await store.load();
    assert.equal(r.kind, "invalid"); // reading under a file is not "missing": it is unreadable
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("networkDirName: readable, distinct per passphrase", () => {
  const t = networkDirName(TESTNET);
  assert.match(t, /^test-sdf-network-september-2015-[0-9a-f]{16}$/);
  assert.notEqual(t, networkDirName(MAINNET));
  assert.notEqual(networkDirName("a;b"), networkDirName("a b"), "same slug, other hash");
});
