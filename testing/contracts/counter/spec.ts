/**
 * Test fixture `counter`: per-user counters with auth, a typed error, an event, a cross-contract
 * call into a token, and a trap (used by the host, node, keeper and benchmark tests).
 *
 * - `__constructor(admin)`: stores the admin in instance storage (key Symbol `Admin`).
 * - `increment(user, by) -> u32`: requires `user`'s auth; `TooBig` (#1) when `by > 100`; emits
 *   `[incr, user]` with the new count as data. Count key: persistent `Vec[Symbol(Count), user]`.
 * - `get(user) -> u32`: the user's count (0 if none), no auth.
 * - `admin() -> Address`: the admin (`NoAdmin` #2 if none).
 * - `transfer_via(token, from, to, amount)`: requires `from`'s auth (unless `from` is this
 *   contract), then calls `token.transfer(from, to, amount)`.
 * - `boom()`: traps (`Error(WasmVm, InvalidAction)`).
 *
 * @module
 */
import { defineSpec, T } from "@vigil/soroban/spec_dsl";

/** The counter's error codes. */
export const CounterError = { TooBig: 1, NoAdmin: 2 } as const;

/** The counter's interface. */
export const COUNTER_SPEC = defineSpec({
  functions: [
    { name: "__constructor", inputs: [["admin", T.address]] },
    { name: "increment", inputs: [["user", T.address], ["by", T.u32]], output: T.u32 },
    { name: "get", inputs: [["user", T.address]], output: T.u32 },
    { name: "admin", output: T.address },
    {
      name: "transfer_via",
      inputs: [["token", T.address], ["from", T.address], ["to", T.address], ["amount", T.i128]],
    },
    { name: "boom" },
  ],
  errors: { TooBig: [1, "Too big"], NoAdmin: [2, "No admin"] },
});
