/**
 * The FFI wrapper's own failures: a missing library says how to build it, and a malformed
 * request comes back as a RealHostError (the library never panics across the boundary).
 */
import assert from "node:assert/strict";
import { Keypair, xdr } from "@stellar/stellar-sdk";
import {
  closeRealHost,
  defaultCostParams,
  invokeHostFunction,
  MISSING_LIBRARY_MESSAGE,
  RealHostError,
  resourceFee,
} from "./mod.ts";
import { RealLedger } from "@vigil/testing/real_host/ledger";

Deno.test("real host: a missing library names the build command", () => {
  closeRealHost();
  Deno.env.set("VIGIL_REAL_HOST_LIB", "/nonexistent/libvigil_real_host.so");
  try {
    assert.throws(() => defaultCostParams(), (e: Error) => {
      assert.ok(e instanceof RealHostError);
      assert.ok(e.message.startsWith(MISSING_LIBRARY_MESSAGE), e.message);
      assert.match(e.message, /npm ci.*cargo.*rustup\.rs/);
      return true;
    });
  } finally {
    Deno.env.delete("VIGIL_REAL_HOST_LIB");
    closeRealHost();
  }
});

Deno.test("real host: malformed requests come back as RealHostError", () => {
  try {
    const l = new RealLedger();
    const g = Keypair.random().publicKey();
    const resources = new xdr.SorobanResources({
      footprint: new xdr.LedgerFootprint({
        readOnly: [
          xdr.LedgerKey.account(
            new xdr.LedgerKeyAccount({ accountId: Keypair.fromPublicKey(g).xdrAccountId() }),
          ),
        ],
        readWrite: [],
      }),
      instructions: 1_000_000,
      diskReadBytes: 0,
      writeBytes: 0,
    });
    const input = {
      hostFunction: xdr.HostFunction.hostFunctionTypeUploadContractWasm(new Uint8Array([0, 1])),
      resources,
      sourceAccount: Keypair.fromPublicKey(g).xdrAccountId(),
      auth: [],
      ledger: l.info(),
      entries: [],
      prngSeed: new Uint8Array(32),
    };
    assert.throws(() => invokeHostFunction(input), /`entries` has 0 items for a footprint of 1/);
    assert.throws(
      () => invokeHostFunction({ ...input, entries: [undefined], prngSeed: new Uint8Array(3) }),
      /not 32 bytes/,
    );
    // A bad Wasm is the host's own error, not a wrapper failure.
    const out = invokeHostFunction({ ...input, entries: [undefined] });
    assert.equal(out.ok, false);
    assert.ok(out.error?.scError, out.error?.debug);
    // The built-in cost model: one entry per cost type, non-empty XDR.
    const params = defaultCostParams();
    assert.ok(params.cpu.length > 100 && params.mem.length > 100);
  } finally {
    closeRealHost();
  }
});

Deno.test("real host: resource fee from the host's fee schedule", () => {
  try {
    const l = new RealLedger();
    const fee = resourceFee({
      instructions: 1_000_000,
      diskReadEntries: 1,
      writeEntries: 1,
      diskReadBytes: 0,
      writeBytes: 1024,
      contractEventsSizeBytes: 2048,
      transactionSizeBytes: 1024,
    }, l.info());
    // Protocol 27's schedule (SLP-4): 7/10k instructions + 1,563 per disk read + 2,500 per
    // write + 875 per KiB written + ⌈(1,024 + 300) × 4,059 / 1,024⌉ history + 406 per KiB of
    // bandwidth.
    assert.equal(fee.nonRefundable, 700n + 1_563n + 2_500n + 875n + 5_249n + 406n);
    // Events: 5,000 per KiB, refundable.
    assert.equal(fee.refundable, 10_000n);
  } finally {
    closeRealHost();
  }
});
