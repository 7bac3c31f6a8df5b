import assert from "node:assert/strict";
import type { Depositor, KeeperInfo } from "@vigil/contracts/clients";
import { depositorPosition, keeperRecord } from "./contract_reads.ts";

const info: KeeperInfo = {
  avg_response_time_ms: 0n,
  name: "k1",
  operator: "GOPERATOR",
  registered_at: 10n,
  response_count: 0n,
  stake: 5n,
  successful_fills: 0n,
  total_executions: 1n,
  total_profit: 0n,
  total_response_time_ms: 0n,
};

Deno.test("keeperRecord: no timed execution is an unknown average, not 0 ms", () => {
  assert.equal(keeperRecord(info).avg_response_time_ms, null);
  const timed = keeperRecord({ ...info, response_count: 3n, total_response_time_ms: 100n });
  assert.equal(timed.avg_response_time_ms, 33n);
  assert.equal(timed.address, "GOPERATOR");
  assert.equal(timed.name, "k1");
});

Deno.test("depositorPosition reads the spec's fields (balance's usdc_value)", () => {
  const rec: Depositor = {
    deposited: 7n,
    first_deposit_at: 1n,
    last_deposit_at: 2n,
    locked_shares: 3n,
    shares: 4n,
    unlock_at: 9n,
    withdrawn: 0n,
  };
  const p = depositorPosition("GD", rec, { shares: 4n, usdc_value: 8n });
  assert.deepEqual(p, {
    address: "GD",
    shares: 4n,
    value: 8n,
    last_deposit_at: 2n,
    unlock_at: 9n,
    locked_shares: 3n,
    deposited: 7n,
    withdrawn: 0n,
    exists: true,
  });
  const none = depositorPosition("GD", null, { shares: 0n, usdc_value: 0n });
  assert.equal(none.exists, false);
  assert.equal(none.shares, 0n);
  assert.equal(none.unlock_at, null);
});
