/**
 * `contract.Client` helpers shared by the over-RPC protocol tests (dex_test.ts,
 * allocation_vault_test.ts): a loosely typed client, unwrapping a simulated result, the contract
 * error code of a failed simulation, and sign-and-send expecting success.
 *
 * @module
 */
import { sendAssembled } from "../../submit.ts";
import assert from "node:assert/strict";
import { type contract, rpc } from "@stellar/stellar-sdk";

/** Options of every test transaction: a long validity window, since tests move ledger time. */
export const TX = { timeoutInSeconds: 3600 } as const;

// deno-lint-ignore no-explicit-any
type Fn = (...a: any[]) => Promise<contract.AssembledTransaction<any>>;

/** A contract client whose methods are called by name. */
export type Client = contract.Client & Record<string, Fn>;

/** The simulated result of a call (throws on an error result). */
export function ok<T>(tx: { result: unknown }): T {
  return (tx.result as contract.Result<T>).unwrap();
}

/** The contract error code of a failed simulation. */
export function simError(tx: contract.AssembledTransaction<unknown>): number {
  const sim = tx.simulation;
  assert.ok(sim && rpc.Api.isSimulationError(sim), "expected a simulation error");
  const m = /Error\(Contract, #(\d+)\)/.exec(sim.error);
  assert.ok(m, `no contract error in: ${sim.error.slice(0, 200)}`);
  return Number(m[1]);
}

/**
 * Signs and sends; the transaction must succeed (an included FAILED one throws). Returns its
 * decoded `result` (read it with {@link ok}) and the confirmed `response`.
 */
export function send(tx: contract.AssembledTransaction<unknown>) {
  return sendAssembled(tx);
}
