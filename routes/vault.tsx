/**
 * `/vault` — the vault's figures, the connected wallet's position, deposit and withdraw,
 * and keeper registration. Figures render server-side; the islands add the wallet parts.
 *
 * @module
 */
import type { Handlers, PageProps } from "../web/types.ts";
import type { RegistryConfig, VaultConfig, VaultState } from "../lib/chain.ts";
import { formatDuration, formatUsdc } from "../lib/format.ts";
import { Notice, PageHead } from "../components/ui.tsx";
import VaultPanel from "../islands/VaultPanel.tsx";
import KeeperPanel from "../islands/KeeperPanel.tsx";

interface Data {
  state: VaultState | null;
  vaultConfig: VaultConfig | null;
  registryConfig: RegistryConfig | null;
  chainNow: number | null;
  errors: string[];
}

export const handler: Handlers<Data> = {
  async GET(_req, ctx) {
    const { chain } = ctx.state;
    const [st, vc, rc, t] = await Promise.all([
      chain.vaultState(),
      chain.vaultConfig(),
      chain.registryConfig(),
      chain.chainTime(),
    ]);
    return ctx.render({
      state: st.value,
      vaultConfig: vc.value,
      registryConfig: rc.value,
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
            Deposits earn only from realized liquidation profit. Deposit cap{" "}
            {formatUsdc(vc?.deposit_cap, 0)}, withdraw cooldown{" "}
            {formatDuration(vc?.withdraw_cooldown)}, at most{" "}
            {formatUsdc(vc?.max_draw_per_keeper, 0)} out per keeper.
          </>
        }
      />
      {data.errors.length > 0 && (
        <Notice kind="error" id="chain-error">
          Some figures could not be read from the chain ({data.errors[0]}); they show “—”.
        </Notice>
      )}
      <VaultPanel
        config={state.config}
        state={data.state}
        vaultConfig={data.vaultConfig}
        usdc={data.registryConfig?.usdc_token ?? null}
        chainNow={data.chainNow}
      />
      <div style={{ marginTop: "16px" }}>
        <KeeperPanel config={state.config} registryConfig={data.registryConfig} />
      </div>
    </>
  );
}
