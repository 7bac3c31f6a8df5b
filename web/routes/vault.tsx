/**
 * `/vault` — the vault's figures, the connected wallet's position, deposit and withdraw,
 * and keeper registration. Figures render server-side; the islands add the wallet parts.
 *
 * @module
 */
import type { Handlers, PageProps } from "../state.ts";
import type { FlashPolicy, VaultConfig, VaultState } from "@vigil/contracts/clients/vault";
import type { RegistryConfig } from "@vigil/contracts/clients/registry";
import type { Pending } from "../data/contract_reads.ts";
import { formatDuration, formatUsdc } from "../data/format.ts";
import { Addr, Notice, PageHead } from "../components/ui.tsx";
import { PendingChanges, ProfitUnlockNotice } from "../components/vault_status.tsx";
import VaultPanel from "../islands/VaultPanel.tsx";
import KeeperPanel from "../islands/KeeperPanel.tsx";

interface Data {
  state: VaultState | null;
  vaultConfig: VaultConfig | null;
  registryConfig: RegistryConfig | null;
  policy: FlashPolicy | null;
  pendingPolicy: Pending<FlashPolicy> | null;
  pendingConfig: Pending<VaultConfig> | null;
  pendingError: string | null;
  /** The vault's admin; null once renounced; undefined when unreadable. */
  admin: string | null | undefined;
  chainNow: number | null;
  errors: string[];
}

export const handler: Handlers<Data> = {
  async GET(_req, ctx) {
    const { chain } = ctx.state;
    const [st, vc, rc, t, fp, pp, pc, admin] = await Promise.all([
      chain.vaultState(),
      chain.vaultConfig(),
      chain.registryConfig(),
      chain.chainTime(),
      chain.flashPolicy(),
      chain.pendingFlashPolicy(),
      chain.pendingConfig(),
      chain.vaultAdmin(),
    ]);
    return ctx.render({
      state: st.value,
      vaultConfig: vc.value,
      registryConfig: rc.value,
      policy: fp.value,
      pendingPolicy: pp.value,
      pendingConfig: pc.value,
      pendingError: pp.error ?? pc.error,
      admin: admin.error ? undefined : admin.value,
      chainNow: t.value,
      errors: [st.error, vc.error, rc.error].filter((e): e is string => !!e),
    });
  },
};

export const meta = () => ({
  title: "Vault · Vigil",
  description: "Deposit USDC, withdraw, and register a keeper.",
});

export default function Vault({ data, state }: PageProps<Data>) {
  const vc = data.vaultConfig;
  return (
    <>
      <PageHead
        title="Vault"
        lede={
          <>
            Deposits earn only from realized liquidation profit, which enters the share price over
            {" "}
            {formatDuration(vc?.profit_unlock_secs)}. Deposit cap{" "}
            {formatUsdc(vc?.deposit_cap)}, withdraw cooldown {formatDuration(vc?.withdraw_cooldown)}
            {" "}
            (chain time), at most {formatUsdc(vc?.max_draw_per_keeper)}{" "}
            per flash: a keeper borrows it and repays it with the profit in the same transaction, so
            no capital is ever out of the vault between transactions. Admin{" "}
            {data.admin === undefined
              ? "—"
              : data.admin === null
              ? "renounced (the rules can no longer change)"
              : <Addr address={data.admin} link={false} />}; its changes wait{" "}
            {formatDuration(vc?.policy_delay)} before they apply.
          </>
        }
      />
      {data.errors.length > 0 && (
        <Notice kind="error" id="chain-error">
          Some figures could not be read from the chain ({data.errors[0]}); they show “—”.
        </Notice>
      )}
      <ProfitUnlockNotice
        state={data.state}
        chainNow={data.chainNow}
        rate={state.chain.clock.view().rate}
      />
      <VaultPanel
        config={state.config}
        state={data.state}
        vaultConfig={data.vaultConfig}
        usdc={data.registryConfig?.usdc_token ?? null}
        chainNow={data.chainNow}
        clock={state.chain.clock.view()}
      />
      <div style={{ marginTop: "16px" }}>
        <PendingChanges
          policy={data.policy}
          pendingPolicy={data.pendingPolicy}
          config={data.vaultConfig}
          pendingConfig={data.pendingConfig}
          chainNow={data.chainNow}
          rate={state.chain.clock.view().rate}
          error={data.pendingError}
        />
      </div>
      <div style={{ marginTop: "16px" }}>
        <KeeperPanel config={state.config} registryConfig={data.registryConfig} />
      </div>
    </>
  );
}
