/**
 * The transfer audit's own rules, on hand-built event lists (the chain-facing part is exercised
 * by the race, recovery and demo tests). The case that matters: a withdrawal excuses only its own
 * amount, so a transaction that withdraws AND takes more USDC out cannot hide behind it.
 */
import assert from "node:assert/strict";
import { type AuditEvent, auditEvents } from "./transfer_audit.ts";

const VAULT = "CVAULT";
const USDC = "CUSDC";
const ev = (tx: string, contract: string, topics: unknown[], value: unknown): AuditEvent => ({
  ledger: 1,
  txHash: tx,
  contract,
  topics,
  value,
});
const transfer = (tx: string, from: string, to: string, amount: bigint) =>
  ev(tx, USDC, ["transfer", from, to, "USDC:G"], amount);

Deno.test("transfer audit: repaid flash passes, short flash fails, a withdrawal excuses only its own amount", () => {
  const r = auditEvents([
    // A flash that put back more than it lent (map-shaped value, as protocol 23 emits).
    transfer("ok", VAULT, "GKEEPER", 100n),
    transfer("ok", "GKEEPER", VAULT, { amount: 103n } as never),
    ev("ok", VAULT, ["flash", "GKEEPER"], [100n, 103n, 3n, "CEXEC"]),
    // A flash that put back less.
    transfer("short", VAULT, "GKEEPER", 100n),
    transfer("short", "GKEEPER", VAULT, 99n),
    // A depositor's own withdrawal: not an outflow.
    transfer("wd", VAULT, "GALICE", 50n),
    ev("wd", VAULT, ["withdraw", "GALICE"], [49n, 50n]),
    // A withdrawal plus another 40 out, nothing back: the withdrawal does not excuse the 40.
    transfer("mixed", VAULT, "GALICE", 50n),
    ev("mixed", VAULT, ["withdraw", "GALICE"], [49n, 50n]),
    transfer("mixed", VAULT, "GEVE", 40n),
    // A deposit: only in.
    transfer("dep", "GBOB", VAULT, 10n),
  ], VAULT);
  assert.equal(r.txs.length, 5);
  assert.deepEqual(r.violations.map((t) => t.txHash).sort(), ["mixed", "short"]);
  assert.equal(r.outflows, 3, "ok, short and mixed take USDC out beyond a withdrawal");
  const wd = r.txs.find((t) => t.txHash === "wd")!;
  assert.equal(wd.withdrawn, 50n);
});

Deno.test("transfer audit: a flash in which the keeper gains any watched asset is reported; lot assets do not count as the vault's USDC", () => {
  const XLM = "CXLM";
  const r = auditEvents(
    [
      // An honest liquidation: the keeper receives the loan and the lot, and passes both on.
      transfer("honest", VAULT, "GKEEPER", 100n),
      transfer("honest", "GKEEPER", "CPOOL", 60n),
      ev("honest", XLM, ["transfer", "CPOOL", "GKEEPER", "native"], 900n),
      ev("honest", XLM, ["transfer", "GKEEPER", "CLIQ", "native"], 900n),
      transfer("honest", "CPAIR", "CLIQ", 90n),
      transfer("honest", "GKEEPER", VAULT, 40n),
      transfer("honest", "CLIQ", VAULT, 90n),
      ev("honest", VAULT, ["flash", "GKEEPER"], [100n, 130n, 30n, "CLIQ"]),
      // The keeper keeps 1 XLM of the lot (the vault is repaid in full all the same).
      transfer("kept", VAULT, "GEVE", 100n),
      ev("kept", XLM, ["transfer", "CPOOL", "GEVE", "native"], 900n),
      ev("kept", XLM, ["transfer", "GEVE", "CLIQ", "native"], 899n),
      transfer("kept", "GEVE", VAULT, 100n),
      ev("kept", VAULT, ["flash", "GEVE"], [100n, 100n, 0n, "CLIQ"]),
      // An XLM transfer touching the vault address is not USDC.
      ev("xlm", XLM, ["transfer", VAULT, "GEVE", "native"], 5n),
      // The keeper pays profit out of its own pocket: net negative, fine.
      transfer("paid", VAULT, "GKEEPER", 10n),
      transfer("paid", "GKEEPER", VAULT, 12n),
      ev("paid", VAULT, ["flash", "GKEEPER"], [10n, 12n, 2n, "CEXEC"]),
    ],
    VAULT,
    USDC,
  );
  assert.deepEqual(r.violations, []);
  assert.deepEqual(r.keeperGains.map((t) => t.txHash), ["kept"]);
  const kept = r.keeperGains[0];
  assert.equal(kept.keeper, "GEVE");
  assert.deepEqual(kept.keeperNet, { [USDC]: 0n, [XLM]: 1n });
  const honest = r.txs.find((t) => t.txHash === "honest")!;
  assert.deepEqual(honest.keeperNet, { [USDC]: 0n, [XLM]: 0n });
  assert.equal(honest.in, 130n);
  assert.ok(!r.txs.some((t) => t.txHash === "xlm"), "XLM moves are not the vault's USDC");
  assert.equal(r.txs.find((t) => t.txHash === "paid")!.keeperNet[USDC], -2n);
});

Deno.test("transfer audit: CAP-67 fee events on the XLM SAC (charge, negative refund) are not transfers", () => {
  const XLM = "CXLM";
  const fee = (tx: string, who: string, amount: bigint) => ev(tx, XLM, ["fee", who], amount);
  const r = auditEvents(
    [
      // A repaid flash whose keeper paid 200,000 stroops and got 150,000 back: no keeper gain,
      // though the refund, read as a transfer, would be one.
      fee("flash", "GKEEPER", 200_000n),
      transfer("flash", VAULT, "GKEEPER", 100n),
      ev("flash", XLM, ["transfer", "CPOOL", "GKEEPER", "native"], 900n),
      ev("flash", XLM, ["transfer", "GKEEPER", "CLIQ", "native"], 900n),
      transfer("flash", "GKEEPER", VAULT, 101n),
      ev("flash", VAULT, ["flash", "GKEEPER"], [100n, 101n, 1n, "CLIQ"]),
      fee("flash", "GKEEPER", -150_000n),
      // A transaction with fee events only (e.g. a failed one): nothing moved.
      fee("failed", "GKEEPER", 300_000n),
      fee("failed", "GKEEPER", -290_000n),
    ],
    VAULT,
    USDC,
  );
  assert.deepEqual(r.keeperGains, []);
  assert.deepEqual(r.violations, []);
  assert.deepEqual(r.txs.map((t) => t.txHash), ["flash"]);
  assert.deepEqual(r.txs[0].keeperNet, { [USDC]: -1n, [XLM]: 0n });
});
