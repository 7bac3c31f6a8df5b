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
