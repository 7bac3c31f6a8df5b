import { HOST_FUNCTIONS } from "../localnet/host/wasm/bindings/mod.ts";
const by: Record<string, number> = {};
for (const k of HOST_FUNCTIONS.keys()) by[k[0]] = (by[k[0]] ?? 0) + 1;
console.log(HOST_FUNCTIONS.size, JSON.stringify(by));
// which are called in tests: grep keys
const src = [...Deno.readDirSync("tests/wasm")].map((e) => Deno.readTextFileSync("tests/wasm/" + e.name)).join("\n");
const untested = [...HOST_FUNCTIONS].filter(([k, f]) => !src.includes(`"${k}"`) && !src.includes(`"${k.replace(".", "_").replace("__","__")}"`) && !src.includes(`"m_${k.replace(".", "_")}"`)).map(([k, f]) => `${k} ${f.name}`);
console.log(untested.join("\n"));
