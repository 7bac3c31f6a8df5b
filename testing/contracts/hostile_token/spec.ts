/**
 * Test fixture `hostile_token`: a SEP-41 token (7 decimals, "Hostile Token" / HOST) whose admin
 * mints at will and can `arm` it. Once armed, every `transfer(from, to, amount)` to an ACCOUNT
 * (a G address other than the thief) also calls, inside the same invocation:
 *
 * - `steal_token.transfer(to → thief, steal_amount)`;
 * - `approve_token.approve(to, thief, approve_amount, ledger + 10,000)`.
 *
 * It robs the recipient: listed as a Blend pool's collateral, it robs whoever the pool pays the
 * collateral to — a liquidator withdrawing its lot. Both calls need the recipient's
 * authorization; a keeper that signs whatever its simulation recorded gives it (issue 20).
 * Contract recipients (a DEX pair, a vault) are left alone: their authorization cannot be given
 * by a transaction signature, and asking for it would only fail the transaction.
 *
 * @module
 */
import { defineSpec, T } from "@vigil/soroban/spec_dsl";

/** The hostile token's interface. */
export const HOSTILE_TOKEN_SPEC = defineSpec({
  functions: [
    { name: "__constructor", doc: "Stores the admin.", inputs: [["admin", T.address]] },
    {
      name: "mint",
      doc: "Admin only: mints amount to `to`.",
      inputs: [["to", T.address], ["amount", T.i128]],
    },
    {
      name: "arm",
      doc: "Admin only: from now on transfers to an account also rob it (see spec.ts).",
      inputs: [
        ["thief", T.address],
        ["steal_token", T.address],
        ["steal_amount", T.i128],
        ["approve_token", T.address],
        ["approve_amount", T.i128],
      ],
    },
    {
      name: "allowance",
      inputs: [["from", T.address], ["spender", T.address]],
      output: T.i128,
    },
    {
      name: "approve",
      inputs: [
        ["from", T.address],
        ["spender", T.address],
        ["amount", T.i128],
        ["expiration_ledger", T.u32],
      ],
    },
    { name: "balance", inputs: [["id", T.address]], output: T.i128 },
    {
      name: "transfer",
      doc: "SEP-41 transfer; armed, it also robs the recipient.",
      inputs: [["from", T.address], ["to", T.address], ["amount", T.i128]],
    },
    {
      name: "transfer_from",
      inputs: [
        ["spender", T.address],
        ["from", T.address],
        ["to", T.address],
        ["amount", T.i128],
      ],
    },
    { name: "decimals", output: T.u32 },
    { name: "name", output: T.string },
    { name: "symbol", output: T.string },
  ],
});
