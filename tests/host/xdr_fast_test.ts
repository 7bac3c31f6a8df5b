import assert from "node:assert/strict";
import fc from "fast-check";
import { Asset, Keypair, nativeToScVal, StrKey, xdr } from "@stellar/stellar-sdk";
import {
  accountKey,
  compareScVal,
  contractCodeKey,
  contractDataKey,
  encodeScVal,
  fromBase64,
  ledgerEntrySize,
  scValSize,
  scvEquals,
  toBase64,
  trustlineKey,
} from "../../localnet/host/xdr_fast.ts";
import { accountBytes, scAddressFromString } from "../../localnet/host/keys.ts";

// deno-lint-ignore no-explicit-any
type Any = any;

const G = Keypair.random().publicKey();
const C = StrKey.encodeContract(new Uint8Array(32).fill(7) as Any);

/** Arbitrary ScVals covering every arm the fast writer handles natively, plus fallbacks. */
const scval: fc.Arbitrary<xdr.ScVal> = fc.letrec<{ v: xdr.ScVal }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    fc.boolean().map((b) => xdr.ScVal.scvBool(b)),
    fc.constant(xdr.ScVal.scvVoid()),
    fc.integer({ min: 0, max: 0xffffffff }).map((n) => xdr.ScVal.scvU32(n)),
    fc.integer({ min: -0x80000000, max: 0x7fffffff }).map((n) => xdr.ScVal.scvI32(n)),
    fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }).map((n) => nativeToScVal(n, { type: "u64" })),
    fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }).map((n) =>
      nativeToScVal(n, { type: "i64" })
    ),
    fc.bigInt({ min: -(1n << 127n), max: (1n << 127n) - 1n }).map((n) =>
      nativeToScVal(n, { type: "i128" })
    ),
    fc.bigInt({ min: 0n, max: (1n << 128n) - 1n }).map((n) => nativeToScVal(n, { type: "u128" })),
    fc.bigInt({ min: -(1n << 255n), max: (1n << 255n) - 1n }).map((n) =>
      nativeToScVal(n, { type: "i256" })
    ),
    fc.uint8Array({ maxLength: 40 }).map((b) => xdr.ScVal.scvBytes(b as Any)),
    fc.string({ maxLength: 20 }).map((s) => xdr.ScVal.scvString(s)),
    fc.stringMatching(/^[a-zA-Z0-9_]{0,32}$/).map((s) => xdr.ScVal.scvSymbol(s)),
    fc.constantFrom(G, C).map((a) => xdr.ScVal.scvAddress(scAddressFromString(a))),
    fc.bigInt({ min: 0n, max: (1n << 63n) - 1n }).map((n) =>
      xdr.ScVal.scvLedgerKeyNonce(new xdr.ScNonceKey({ nonce: n }))
    ),
    fc.constant(xdr.ScVal.scvLedgerKeyContractInstance()),
    fc.array(tie("v"), { maxLength: 4 }).map((a) => xdr.ScVal.scvVec(a)),
    fc.array(fc.tuple(tie("v"), tie("v")), { maxLength: 3 }).map((a) =>
      xdr.ScVal.scvMap(a.map(([key, val]) => new xdr.ScMapEntry({ key, val })))
    ),
  ),
})).v;

Deno.test("fast ScVal writer is byte-identical to the SDK encoder", () => {
  fc.assert(
    fc.property(scval, (v) => {
      const ours = encodeScVal(v);
      assert.deepEqual(ours, v.toXdr());
      assert.equal(scValSize(v), ours.length);
    }),
    { numRuns: 500 },
  );
});

Deno.test("base64 round trip matches btoa/atob", () => {
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 100 }), (b) => {
      const s = toBase64(b);
      assert.equal(s, btoa(String.fromCharCode(...b)));
      assert.deepEqual(fromBase64(s), b);
    }),
  );
});

Deno.test("ledger keys equal the SDK's LedgerKey XDR", () => {
  const kp = Keypair.random();
  const acc = xdr.LedgerKey.account(
    new xdr.LedgerKeyAccount({
      accountId: xdr.PublicKey.publicKeyTypeEd25519(kp.rawPublicKey() as Any),
    }),
  );
  assert.equal(accountKey(accountBytes(kp.publicKey())), acc.toXdr("base64"));

  const key = nativeToScVal(["Balance", G], { type: ["symbol", "address"] } as Any);
  for (const durability of [0, 1] as const) {
    const sdk = xdr.LedgerKey.contractData(
      new xdr.LedgerKeyContractData({
        contract: scAddressFromString(C),
        key,
        durability: durability === 1
          ? xdr.ContractDataDurability.persistent
          : xdr.ContractDataDurability.temporary,
      }),
    );
    assert.equal(contractDataKey(scAddressFromString(C), key, durability), sdk.toXdr("base64"));
  }

  const hash = new Uint8Array(32).fill(3);
  assert.equal(
    contractCodeKey(hash),
    xdr.LedgerKey.contractCode(new xdr.LedgerKeyContractCode({ hash })).toXdr("base64"),
  );

  const issuer = Keypair.random().publicKey();
  const usdc = new Asset("USDC", issuer);
  const tl = xdr.LedgerKey.trustline(
    new xdr.LedgerKeyTrustLine({
      accountId: xdr.PublicKey.publicKeyTypeEd25519(kp.rawPublicKey() as Any),
      asset: usdc.toTrustLineXDRObject() as Any,
    }),
  );
  assert.equal(
    trustlineKey(kp.rawPublicKey(), new TextEncoder().encode("USDC"), accountBytes(issuer)),
    tl.toXdr("base64"),
  );
});

Deno.test("ledgerEntrySize of contract data equals the XDR length", () => {
  fc.assert(
    fc.property(scval, scval, (key, val) => {
      const e = new xdr.LedgerEntry({
        lastModifiedLedgerSeq: 5,
        data: xdr.LedgerEntryData.contractData(
          new xdr.ContractDataEntry({
            ext: xdr.ExtensionPoint.v0(),
            contract: scAddressFromString(C),
            key,
            durability: xdr.ContractDataDurability.persistent,
            val,
          }),
        ),
        ext: xdr.LedgerEntryExt.v0(),
      });
      assert.equal(ledgerEntrySize(e), e.toXdr().length);
    }),
    { numRuns: 100 },
  );
});

Deno.test("compareScVal is a total order consistent with equality", () => {
  fc.assert(
    fc.property(scval, scval, scval, (a, b, c) => {
      const ab = compareScVal(a, b);
      assert.equal(Math.sign(ab) + 0, -Math.sign(compareScVal(b, a)) + 0);
      assert.equal(ab === 0, scvEquals(a, b));
      if (ab <= 0 && compareScVal(b, c) <= 0) assert.ok(compareScVal(a, c) <= 0);
    }),
    { numRuns: 300 },
  );
});

Deno.test("compareScVal orders like the host: by type, then numerically / lexicographically", () => {
  const i = (n: bigint) => nativeToScVal(n, { type: "i128" });
  assert.ok(compareScVal(i(-5n), i(3n)) < 0);
  assert.ok(compareScVal(i(-(1n << 70n)), i(-1n)) < 0);
  assert.ok(compareScVal(xdr.ScVal.scvU32(9), xdr.ScVal.scvI32(-1)) < 0); // U32 tag < I32 tag
  assert.ok(compareScVal(xdr.ScVal.scvSymbol("Admin"), xdr.ScVal.scvSymbol("AssetInfo")) < 0);
  assert.ok(compareScVal(xdr.ScVal.scvSymbol("ab"), xdr.ScVal.scvSymbol("abc")) < 0);
  assert.ok(compareScVal(xdr.ScVal.scvSymbol("zz"), xdr.ScVal.scvVec([])) < 0); // Symbol tag < Vec tag
  // Accounts sort before contracts.
  assert.ok(
    compareScVal(
      xdr.ScVal.scvAddress(scAddressFromString(G)),
      xdr.ScVal.scvAddress(scAddressFromString(C)),
    ) < 0,
  );
});

Deno.test("ledgerEntrySize of accounts and trustlines equals the XDR length", () => {
  const issuer = Keypair.random().publicKey();
  fc.assert(
    fc.property(
      fc.bigInt({ min: 0n, max: 1n << 62n }),
      fc.stringMatching(/^[a-z.]{0,32}$/),
      fc.boolean(),
      fc.array(fc.integer({ min: 1, max: 255 }), { maxLength: 3 }),
      fc.constantFrom("USD", "USDC", "LONGERCODE12"),
      (balance, home, inflation, weights, code) => {
        const g = Keypair.random().publicKey();
        const acc = xdr.LedgerEntryData.fromJson({
          account: {
            account_id: g,
            balance: balance.toString(),
            seq_num: "5",
            num_sub_entries: weights.length,
            inflation_dest: inflation ? issuer : null,
            flags: 0,
            home_domain: home,
            thresholds: "01020304",
            signers: weights.map((weight) => ({ key: Keypair.random().publicKey(), weight })),
            ext: "v0",
          },
        } as Any);
        const ae = new xdr.LedgerEntry({
          lastModifiedLedgerSeq: 3,
          data: acc,
          ext: xdr.LedgerEntryExt.v0(),
        });
        assert.equal(ledgerEntrySize(ae), ae.toXdr().length);
        const asset = code.length <= 4
          ? { credit_alphanum4: { asset_code: code, issuer } }
          : { credit_alphanum12: { asset_code: code, issuer } };
        const tl = xdr.LedgerEntryData.fromJson({
          trustline: { account_id: g, asset, balance: "1", limit: "100", flags: 1, ext: "v0" },
        } as Any);
        const te = new xdr.LedgerEntry({
          lastModifiedLedgerSeq: 3,
          data: tl,
          ext: xdr.LedgerEntryExt.v0(),
        });
        assert.equal(ledgerEntrySize(te), te.toXdr().length);
      },
    ),
    { numRuns: 40 },
  );
});
