/**
 * The Soroswap factory stand-in's permissionless `create_pair`, over JSON-RPC with a stranger's
 * real signature (what the multi-hop skim of issue 20 relies on): the factory deploys the pair
 * itself at the address the real factory would use (deployer = factory, salt = sha256(token_0 XDR
 * ‖ token_1 XDR)), initialises and indexes it; the router's `add_liquidity` creates a missing pair
 * on its way; the pair trades through the router; a second `create_pair` is 203, identical tokens
 * 202.
 */
import assert from "node:assert/strict";
import { Buffer } from "node:buffer";
import { Address, Asset, hash, rpc, StrKey, xdr } from "@stellar/stellar-sdk";
import { addr } from "@vigil/soroban/spec_dsl";
import { setupDevChain } from "../../../dev_setup.ts";
import { deployDexes } from "../deploy.ts";
import { getAmountOut, sortTokens } from "../math.ts";
import { startTestNode } from "@vigil/testing/localnet";
import {
  contractEvents,
  ok,
  send,
  signingClient,
  TX_OPTS,
} from "@vigil/testing/contracts/vigil_fixture";

const T = TX_OPTS;
const E7 = 10_000_000n;

/** The id the real factory's `deployer().with_current_contract(salt)` yields for (t0, t1). */
function pairAddress(passphrase: string, factory: string, t0: string, t1: string): string {
  const salt = hash(Buffer.concat([addr(t0).toXDR(), addr(t1).toXDR()]));
  const preimage = xdr.HashIdPreimage.envelopeTypeContractId(
    new xdr.HashIdPreimageContractId({
      networkId: hash(Buffer.from(passphrase)),
      contractIdPreimage: xdr.ContractIdPreimage.contractIdPreimageFromAddress(
        new xdr.ContractIdPreimageFromAddress({
          address: Address.fromString(factory).toScAddress(),
          salt,
        }),
      ),
    }),
  );
  return StrKey.encodeContract(hash(preimage.toXDR()));
}

Deno.test("Soroswap stand-in: anyone creates a pair (create_pair, or add_liquidity on a new pair); real pair address; it trades; 203 twice, 202 identical", async () => {
  await using node = await startTestNode();
  const base = await setupDevChain(node, { accounts: ["alice"] });
  const admin = await node.newAccount(50_000_000n);
  const { usdc, xlm } = base.contracts;
  const d = await deployDexes(node, {
    admin: admin.publicKey(),
    tokens: { usdc, xlm },
    liquidity: [{ a: "xlm", b: "usdc", amountA: 1_000_000n * E7, amountB: 100_000n * E7 }],
  });
  // A stranger with two tokens of its own (it is their issuer: unlimited balance).
  const mallory = await node.newAccount(100_000n);
  const m = mallory.publicKey();
  const [aaa, bbb] = [new Asset("AAA", m), new Asset("BBB", m)];
  const tA = await node.deployAsset(aaa);
  const tB = await node.deployAsset(bbb);
  const factory = await signingClient(node, d.soroswap_factory, mallory);
  const router = await signingClient(node, d.primary_dex_router, mallory);
  const pairs0 = ok<number>(await factory.all_pairs_length(T));

  // create_pair: permissionless, at the real factory's address.
  const created = await send<string>(await factory.create_pair({ token_a: tA, token_b: xlm }, T));
  const [s0, s1] = sortTokens(tA, xlm);
  assert.equal(created, pairAddress(node.networkPassphrase, d.soroswap_factory, s0, s1));
  assert.equal(ok(await factory.get_pair({ token_a: xlm, token_b: tA }, T)), created);
  assert.equal(ok(await factory.all_pairs_length(T)), pairs0 + 1);
  assert.equal(ok(await factory.all_pairs({ n: pairs0 }, T)), created);
  const pair = await signingClient(node, created, mallory);
  assert.equal(ok(await pair.factory(T)), d.soroswap_factory);
  assert.deepEqual([ok(await pair.token_0(T)), ok(await pair.token_1(T))], [s0, s1]);
  const ev = (await contractEvents(node.server, d.soroswap_factory)).at(-1)!;
  assert.deepEqual(ev.topics, ["SoroswapFactory", "new_pair"]);
  assert.equal(ev.data.pair, created);
  // Twice: 203; identical tokens: 202.
  for (
    const [a, b, code] of [[xlm, tA, 203], [tA, tA, 202]] as [string, string, number][]
  ) {
    const tx = await factory.create_pair({ token_a: a, token_b: b }, T);
    assert.ok(rpc.Api.isSimulationError(tx.simulation!));
    assert.match(tx.simulation.error, new RegExp(`Error\\(Contract, #${code}\\)`));
  }
  // add_liquidity on a pair that does not exist yet creates it on the way (router → factory).
  const deadline = node.latestLedger().closeTime + 3_600n;
  await send(
    await router.add_liquidity({
      token_a: tA,
      token_b: tB,
      amount_a_desired: 1_000n * E7,
      amount_b_desired: 4_000n * E7,
      amount_a_min: 0n,
      amount_b_min: 0n,
      to: m,
      deadline,
    }, T),
  );
  const ab = ok<string>(await factory.get_pair({ token_a: tB, token_b: tA }, T));
  assert.equal(ok(await factory.all_pairs_length(T)), pairs0 + 2);
  // It trades through the router at the constant-product price.
  const amounts = await send<bigint[]>(
    await router.swap_exact_tokens_for_tokens({
      amount_in: 10n * E7,
      amount_out_min: 0n,
      path: [tA, tB],
      to: m,
      deadline,
    }, T),
  );
  assert.equal(amounts[1], getAmountOut(10n * E7, 1_000n * E7, 4_000n * E7));
  assert.equal(await node.view<bigint>(tA, "balance", { id: ab }), 1_010n * E7);
});
