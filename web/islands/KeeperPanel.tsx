/**
 * Keeper registration on the vault page: register the connected wallet as a keeper (with a
 * name; the registry pulls exactly min_stake USDC) or deregister it (after a confirmation; the
 * stake is paid back). Signed by the connected wallet.
 *
 * @module
 */
import { useEffect, useState } from "preact/hooks";
import type { PublicConfig } from "../data/config.ts";
import type { RegistryConfig } from "@vigil/contracts/clients/registry";
import type { KeeperRecord } from "../data/contract_reads.ts";
import { DASH, formatCount, formatMs, formatUsdc, formatUsdcExact } from "../data/format.ts";
import { signerFor, wallet } from "../wallet/wallet.ts";
import { useWrite, writesConfirmed, WriteStatus } from "../components/write.tsx";
import { contractWrite, loadChainReader } from "../data/lazy_sdk.ts";

/** Props rendered by the server. */
export interface KeeperPanelProps {
  config: PublicConfig;
  registryConfig: RegistryConfig | null;
}

const MAX_NAME_BYTES = 64;

/** The keeper register/deregister island. */
export default function KeeperPanel(props: KeeperPanelProps) {
  const { config, registryConfig: rc } = props;
  const reader = () => loadChainReader(config);
  const w = wallet.value;
  const [keeper, setKeeper] = useState<KeeperRecord | null>(null);
  const [balance, setBalance] = useState<bigint | null>(null);
  const [loaded, setLoaded] = useState(false);
  const [readError, setReadError] = useState<string | null>(null);
  const [name, setName] = useState("");
  // Deregistering asks first: it ends the keeper's listing and pays its stake back.
  const [confirming, setConfirming] = useState(false);
  const { state: ws, run, busy } = useWrite({ usdc: rc?.usdc_token });

  const load = async (address: string | null) => {
    setLoaded(false);
    if (!address) {
      setKeeper(null);
      setBalance(null);
      return;
    }
    const r = await reader();
    const [k, b] = await Promise.all([
      r.keeper(address),
      rc ? r.tokenBalance(rc.usdc_token, address) : Promise.resolve({ value: null, error: null }),
    ]);
    setKeeper(k.value);
    setReadError(k.error);
    setBalance(b.value);
    setLoaded(true);
  };

  // Again after every write confirmed on the page (a deposit moves the wallet's USDC too).
  const writes = writesConfirmed.value;
  useEffect(() => {
    load(w?.address ?? null);
  }, [w?.address, writes]);

  const nameBytes = new TextEncoder().encode(name.trim()).length;
  const nameOk = nameBytes >= 1 && nameBytes <= MAX_NAME_BYTES;
  const short = rc && balance !== null && balance < rc.min_stake;

  const register = async (e: Event) => {
    e.preventDefault();
    if (!w || !config.registry || !nameOk) return;
    const r = await run(
      contractWrite(config, config.registry, "register", [w.address, name.trim()], signerFor(w)),
      () => `Registered "${name.trim()}" with a stake of ${formatUsdc(rc?.min_stake)}.`,
    );
    if (r) setName("");
    if (!r) await load(w.address);
  };

  const deregister = async () => {
    if (!w || !config.registry) return;
    setConfirming(false);
    const r = await run(
      contractWrite<bigint>(config, config.registry, "deregister", [w.address], signerFor(w)),
      (r) => `Deregistered; ${formatUsdcExact(r.value)} of stake paid back.`,
    );
    if (r === null) await load(w.address);
  };

  const registerBlock = !config.registry
    ? "No registry contract is configured."
    : short
    ? `Registering stakes ${formatUsdcExact(rc?.min_stake)}; your wallet holds ${
      formatUsdcExact(balance)
    }.`
    : !nameOk
    ? "Enter a keeper name of 1 to 64 bytes."
    : null;

  return (
    <section class="panel" id="keeper-panel">
      <div class="panel-head">
        <h2>Run a keeper</h2>
        <span class="badge" id="min-stake">Min stake {formatUsdc(rc?.min_stake)}</span>
      </div>
      <p class="muted small" style={{ marginTop: 0 }}>
        Keepers stake USDC in the registry and borrow vault capital as a flash loan to fill
        liquidation auctions: the fill, the swap and the repayment with profit happen in one
        transaction, or nothing happens. All profit goes to depositors; a keeper risks only its
        transaction fees, and the stake is paid back on deregistration at any time.
      </p>
      {!w && <p class="muted" id="keeper-empty">Connect a wallet to register or deregister.</p>}
      {w && readError && <p class="notice error small">{readError}</p>}
      {w && loaded && keeper && (
        <div id="keeper-registered">
          <dl class="kv">
            <dt>Name</dt>
            <dd id="keeper-name">{keeper.name ?? DASH}</dd>
            <dt>Stake</dt>
            <dd id="keeper-stake">{formatUsdcExact(keeper.stake)}</dd>
            <dt>Settled flashes</dt>
            <dd>{formatCount(keeper.total_executions)}</dd>
            <dt>Counted fills</dt>
            <dd>{formatCount(keeper.successful_fills)}</dd>
            <dt>Profit delivered</dt>
            <dd>{formatUsdcExact(keeper.total_profit)}</dd>
            <dt>Avg response</dt>
            <dd>{formatMs(keeper.avg_response_time_ms)}</dd>
          </dl>
          <div style={{ marginTop: "12px" }}>
            {!confirming
              ? (
                <button
                  type="button"
                  class="danger"
                  id="deregister-submit"
                  onClick={() => setConfirming(true)}
                  disabled={busy}
                >
                  {busy ? "Working…" : "Deregister and reclaim stake"}
                </button>
              )
              : (
                <div class="confirm" id="deregister-confirm-box" role="alertdialog">
                  <p>
                    Deregister{" "}
                    <strong>{keeper.name ?? "this keeper"}</strong>? The registry pays back its
                    stake of {formatUsdcExact(keeper.stake)}{" "}
                    and stops listing it; its record (fills, profit) is removed. Registering again
                    stakes {formatUsdcExact(rc?.min_stake)} anew.
                  </p>
                  <button type="button" class="danger" id="deregister-confirm" onClick={deregister}>
                    Yes, deregister
                  </button>{" "}
                  <button
                    type="button"
                    class="secondary"
                    id="deregister-cancel"
                    onClick={() => setConfirming(false)}
                  >
                    Cancel
                  </button>
                </div>
              )}
          </div>
        </div>
      )}
      {w && loaded && !keeper && !readError && (
        <form onSubmit={register} id="register-form">
          <div class="field">
            <label for="keeper-name-input">Keeper name</label>
            <input
              id="keeper-name-input"
              maxLength={64}
              placeholder="my-keeper"
              value={name}
              onInput={(e) => setName((e.target as HTMLInputElement).value)}
              disabled={busy}
            />
            <div class="hint">
              Your USDC: <span id="keeper-usdc">{formatUsdcExact(balance)}</span>
              {short && <span class="neg">· below the minimum stake</span>}
              {name !== "" && !nameOk && <span class="neg">· 1 to 64 bytes</span>}
            </div>
          </div>
          <button
            type="submit"
            id="register-submit"
            disabled={busy || registerBlock !== null}
            aria-describedby="register-block"
          >
            {busy ? "Working…" : `Register (stakes ${formatUsdc(rc?.min_stake)})`}
          </button>
          {registerBlock !== null && !busy && (name !== "" || short || !config.registry) && (
            <p class="hint block-reason" id="register-block" role="status">{registerBlock}</p>
          )}
        </form>
      )}
      <WriteStatus state={ws} explorer={config.explorerTx} id="keeper-write" />
    </section>
  );
}
