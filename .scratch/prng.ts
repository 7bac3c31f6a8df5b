import { Operation } from "@stellar/stellar-sdk";
import { forwarder, u32 } from "../tests/wasm/fwd_fixture.ts";
import { submit } from "../tests/wasm/deploy_helpers.ts";
await using f = await forwarder();
const s = await f.sim("p_0", [u32(8)]);
const r = await submit(f.node, f.alice, Operation.invokeContractFunction({ contract: f.id, function: "p_0", args: [u32(8)] }));
console.log((s as any).v.toXDR("base64"), r.returnValue!.toXDR("base64"));
