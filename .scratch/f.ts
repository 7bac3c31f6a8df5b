import { forwarderWat, forwarderWasm } from "../tests/wasm/forwarder.ts";
import { processModule } from "../localnet/host/wasm/module.ts";
const w = await forwarderWasm();
const p = processModule(w, 23);
console.log(w.length, p.imports.length, p.functions.size, p.instrumented.length);
await WebAssembly.compile(p.instrumented);
console.log("compiled ok");
