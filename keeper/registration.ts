/**
 * Keeper registration: start-up step 3, and its retry.
 *
 * The spec makes every registration failure a warning, never fatal. But an unregistered keeper
 * can never draw (the vault reverts with NotRegistered), so a transient failure at start-up would
 * leave the keeper useless until restarted. So a keeper that is not known to be registered
 * checks the registry before each cycle (a free read) and, if still absent, retries `register`
 * with a growing back-off (5 s, doubling to 15 min). Every failure stays a warning.
 *
 * One failure is not a failure of this keeper: two keepers registering in the same ledger (the
 * demo starts two at once). Both simulate against the same keeper count, so both footprints name
 * the same list slot `KeeperAt(n)`; the first to apply takes it and grows the count, and the
 * second's apply then touches `KeeperAt(n + 1)` and a larger registry instance than it declared
 * (`Error(Budget, ExceededLimit)`, or a footprint error). No resource margin can fix that: the
 * footprint itself is stale. So when a `register` fails while the registry's keeper count changed
 * across the attempt, the keeper registers again at once, simulating against the new count, and
 * says so at info level; only a second failure is a warning.
 *
 * @module
 */
import type { Keypair } from "@stellar/stellar-sdk";
import type { KeeperContext } from "./context.ts";
import { ContractCallError, describeError, DryRunError } from "@vigil/soroban/errors";
import { contractErrorName } from "@vigil/soroban/spec_cache";
import type { ChainRpc } from "@vigil/soroban/rpc";
import type { RegistryContract } from "./vault_client.ts";

/**
 * First wait after a failed attempt; doubles up to {@link MAX_BACKOFF_MS}. Short, because the
 * common failure (two registrations in one ledger) is gone by the next ledger; a lasting one
 * (too little USDC) soon backs off to one attempt per 15 minutes.
 */
export const FIRST_BACKOFF_MS = 5_000;
/** Longest wait between two attempts. */
export const MAX_BACKOFF_MS = 15 * 60_000;

/** Where a keeper stands with the registry. */
export interface RegistrationState {
  /** True once registered (or AlreadyRegistered) — then nothing more is sent. */
  registered: boolean;
  /** Failed attempts so far (drives the back-off). */
  failures: number;
  /** Earliest time (ms) of the next attempt. */
  nextAttemptAt: number;
}

/** What {@link ensureRegistered} needs. */
export interface RegistrationDeps {
  chain: ChainRpc;
  registry: RegistryContract;
  keypair: Keypair;
  name: string;
  ctx: Pick<KeeperContext, "log" | "recordError">;
  now?: () => number;
}

/** The registry's keeper count, or undefined when it cannot be read. */
async function keeperCount(registry: Partial<Pick<RegistryContract, "getKeeperCount">>) {
  try {
    return await registry.getKeeperCount?.();
  } catch {
    return undefined;
  }
}

/** A fresh state: not known to be registered, first attempt due now. */
export function newRegistrationState(): RegistrationState {
  return { registered: false, failures: 0, nextAttemptAt: 0 };
}

/** Back-off after `failures` failed attempts: 5 s, 10 s, 20 s, … capped at 15 min. */
export function registrationBackoffMs(failures: number): number {
  return Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** Math.max(0, failures - 1));
}

/**
 * Registers the keeper unless it is already known to be registered. `initial` is start-up's
 * attempt (sent at once); later calls are due only after the back-off and first ask the registry
 * with a read, since the first attempt may have landed after all or an operator may have
 * registered by hand. Never throws.
 */
export async function ensureRegistered(
  state: RegistrationState,
  deps: RegistrationDeps,
  initial = false,
  raced = false,
): Promise<void> {
  if (state.registered) return;
  const now = deps.now ?? Date.now;
  if (!initial && now() < state.nextAttemptAt) return;
  const { registry, keypair, name, ctx } = deps;
  if (!initial) {
    try {
      await registry.getKeeper(keypair.publicKey());
      state.registered = true;
      ctx.log.info("found in the keeper registry", { name });
      return;
    } catch {
      // NotRegistered (or the read failed): fall through to register.
    }
  }
  const countBefore = raced ? undefined : await keeperCount(registry);
  try {
    const r = await registry.register(keypair, name);
    state.registered = true;
    ctx.log.info("registered in the keeper registry", {
      name,
      tx_hash: r.hash,
      ...(initial ? {} : { attempt: state.failures + 1 }),
    });
    return;
  } catch (err) {
    if (err instanceof DryRunError) {
      // Recorded as a dry-run action already; never retried (it would never be sent).
      state.nextAttemptAt = Number.POSITIVE_INFINITY;
      ctx.log.warn(
        "dry-run: not registered; the vault refuses flashes of an unregistered keeper, so their simulations fail",
      );
      return;
    }
    const code = err instanceof ContractCallError ? err.contractCode : undefined;
    const errName = code === undefined
      ? undefined
      : await contractErrorName(deps.chain, registry.id, code);
    if (errName === "AlreadyRegistered") {
      state.registered = true;
      ctx.recordError("registration", err, { msg: "AlreadyRegistered: registration skipped" });
      return;
    }
    if (countBefore !== undefined) {
      const countAfter = await keeperCount(registry);
      if (countAfter !== undefined && countAfter !== countBefore) {
        ctx.log.info(
          "another keeper registered in the same ledger (our registration was simulated against the registry's previous keeper list): registering again",
          {
            plain: `${name}: another keeper registered in the same ledger; registering again`,
            name,
            keepers_before: countBefore,
            keepers_now: countAfter,
            err: describeError(err),
          },
        );
        return await ensureRegistered(state, deps, initial, true);
      }
    }
    state.failures++;
    const waitMs = registrationBackoffMs(state.failures);
    state.nextAttemptAt = now() + waitMs;
    ctx.recordError("registration", err, {
      msg: `registration failed (${errName ?? describeError(err)}): continuing unregistered, ` +
        `retrying in ${Math.round(waitMs / 1000)} s`,
    });
  }
}
