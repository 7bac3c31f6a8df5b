//! A C ABI over the real Soroban host for the local node (issue 22).
//!
//! Every entry point takes one JSON request (UTF-8 bytes) whose XDR parts are base64 strings and
//! returns one JSON response in a buffer the caller releases with [`vh_free`]. JSON keeps the ABI
//! to five functions and lets a request grow fields without a new symbol; the XDR inside is what
//! stellar-core and stellar-rpc hand the host. Nothing panics across the boundary: every entry
//! point runs under `catch_unwind` and turns a panic into `{"fatal": "..."}`.
//!
//! - `vh_invoke`: `e2e_invoke::invoke_host_function`, the call stellar-core makes to apply an
//!   `InvokeHostFunctionOp` (enforcing footprint and auth, entries of the footprint passed in).
//! - `vh_simulate`: `soroban_simulation`'s preflight as stellar-rpc calls it, reading ledger
//!   entries through a C callback the embedder answers synchronously (see [`SnapshotCallback`]).
//! - `vh_resource_fee`: the fee schedule (`fees::compute_transaction_resource_fee`).
//! - `vh_default_cost_params`: the host's built-in cost model as `ContractCostParams` XDR, for a
//!   node that has no network config entries yet.
//!
//! The request/response fields are documented in README.md.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::rc::Rc;
use std::sync::OnceLock;

use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};
use soroban_env_host::budget::AsBudget;
use soroban_env_host::budget::Budget;
use soroban_env_host::e2e_invoke::{
    self, extract_rent_changes, invoke_host_function_in_recording_mode, LedgerEntryChange,
    RecordingInvocationAuthMode,
};
use soroban_env_host::fees::{
    compute_rent_fee, compute_transaction_resource_fee, FeeConfiguration, LedgerEntryRentChange,
    RentFeeConfiguration, TransactionResources,
};
use soroban_env_host::storage::{EntryWithLiveUntil, SnapshotSource};
use soroban_env_host::xdr::{
    AccountId, ContractCostParamEntry, ContractCostParams, ContractCostType,
    ContractDataDurability, DiagnosticEvent, ExtensionPoint, Hash, HostFunction, LedgerEntry,
    LedgerKey, Limits, ReadXdr, ScError, ScErrorCode, ScErrorType, ScVal,
    SorobanAuthorizationEntry, SorobanResources, TtlEntry, WriteXdr,
};
use soroban_env_host::{CompilationContext, ErrorHandler, HostError, LedgerInfo, ModuleCache, Val};
use soroban_simulation::simulation::{
    simulate_extend_ttl_op, simulate_invoke_host_function_op, simulate_restore_op,
    SimulationAdjustmentConfig,
};
use soroban_simulation::NetworkConfig;
use std::cell::RefCell;

type Res<T> = Result<T, String>;

// ---------------------------------------------------------------------------------------------
// FFI surface

/// Applies one host function the way stellar-core does. Request and response: see README.md.
///
/// # Safety
/// `req` must point to `req_len` readable bytes; `out_len` must be writable.
#[no_mangle]
pub unsafe extern "C" fn vh_invoke(req: *const u8, req_len: usize, out_len: *mut usize) -> *mut u8 {
    let input = std::slice::from_raw_parts(req, req_len);
    respond(out_len, || invoke(&parse(input)?))
}

/// Preflights one operation the way stellar-rpc does; ledger reads go through `snapshot`.
///
/// # Safety
/// As [`vh_invoke`]; `snapshot` must stay callable for the duration of the call.
#[no_mangle]
pub unsafe extern "C" fn vh_simulate(
    req: *const u8,
    req_len: usize,
    snapshot: SnapshotCallback,
    out_len: *mut usize,
) -> *mut u8 {
    let input = std::slice::from_raw_parts(req, req_len);
    respond(out_len, || simulate(&parse(input)?, snapshot))
}

/// The host's built-in cost parameters: `{"cpu": b64 ContractCostParams, "mem": ...}`.
///
/// # Safety
/// `out_len` must be writable.
#[no_mangle]
pub unsafe extern "C" fn vh_default_cost_params(out_len: *mut usize) -> *mut u8 {
    respond(out_len, default_cost_params)
}

/// The resource fee of declared resources, as stellar-core charges it at validation:
/// `{"non_refundable": n, "refundable": n}` (the refundable part covers events; rent is added to
/// it from `vh_invoke`'s `rent_fee`).
///
/// # Safety
/// As [`vh_invoke`].
#[no_mangle]
pub unsafe extern "C" fn vh_resource_fee(
    req: *const u8,
    req_len: usize,
    out_len: *mut usize,
) -> *mut u8 {
    let input = std::slice::from_raw_parts(req, req_len);
    respond(out_len, || resource_fee(&parse(input)?))
}

/// Releases a buffer returned by this library.
///
/// # Safety
/// `ptr`/`len` must be exactly a pair returned by this library, released once.
#[no_mangle]
pub unsafe extern "C" fn vh_free(ptr: *mut u8, len: usize) {
    if !ptr.is_null() {
        drop(Box::from_raw(std::ptr::slice_from_raw_parts_mut(ptr, len)));
    }
}

/// Ledger reads during simulation: called with an encoded `LedgerKey`, it returns null when the
/// entry does not exist, or a buffer `[u32 LE entry_len][u32 LE live_until][u8 has_live_until]
/// [entry_len bytes of LedgerEntry XDR]` that must stay valid until the next call (the host copies
/// it at once). Archived persistent entries are returned with their old `live_until`: the host
/// then records them for automatic restore (CAP-66), as stellar-rpc's snapshot does.
pub type SnapshotCallback = unsafe extern "C" fn(key: *const u8, key_len: usize) -> *const u8;

unsafe fn respond(out_len: *mut usize, f: impl FnOnce() -> Res<Value>) -> *mut u8 {
    let started = std::time::Instant::now();
    let value = match catch_unwind(AssertUnwindSafe(f)) {
        Ok(Ok(mut v)) => {
            // Time spent in the library (request parsing to response building), so the embedder
            // can tell the host's cost from its own.
            if let Value::Object(m) = &mut v {
                m.insert(
                    "wrapper_us".into(),
                    json!(started.elapsed().as_micros() as u64),
                );
            }
            v
        }
        Ok(Err(msg)) => json!({ "fatal": msg }),
        Err(panic) => {
            let msg = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_else(|| "unknown panic".into());
            json!({ "fatal": format!("panic in the real host wrapper: {msg}") })
        }
    };
    let bytes = serde_json::to_vec(&value)
        .unwrap_or_else(|_| br#"{"fatal":"response encoding failed"}"#.to_vec())
        .into_boxed_slice();
    *out_len = bytes.len();
    Box::into_raw(bytes) as *mut u8
}

// ---------------------------------------------------------------------------------------------
// Request decoding

fn parse(input: &[u8]) -> Res<Value> {
    serde_json::from_slice(input).map_err(|e| format!("request is not JSON: {e}"))
}

fn field<'a>(v: &'a Value, name: &str) -> Res<&'a Value> {
    v.get(name)
        .filter(|x| !x.is_null())
        .ok_or_else(|| format!("missing field `{name}`"))
}

fn u64_of(v: &Value, name: &str) -> Res<u64> {
    let f = field(v, name)?;
    f.as_u64()
        .or_else(|| f.as_str().and_then(|s| s.parse().ok()))
        .ok_or_else(|| format!("field `{name}` is not an unsigned integer"))
}

fn u32_of(v: &Value, name: &str) -> Res<u32> {
    u32::try_from(u64_of(v, name)?).map_err(|_| format!("field `{name}` exceeds u32"))
}

fn i64_of(v: &Value, name: &str) -> Res<i64> {
    let f = field(v, name)?;
    f.as_i64()
        .or_else(|| f.as_str().and_then(|s| s.parse().ok()))
        .ok_or_else(|| format!("field `{name}` is not an integer"))
}

fn bool_of(v: &Value, name: &str) -> bool {
    v.get(name).and_then(Value::as_bool).unwrap_or(false)
}

fn str_of<'a>(v: &'a Value, name: &str) -> Res<&'a str> {
    field(v, name)?
        .as_str()
        .ok_or_else(|| format!("field `{name}` is not a string"))
}

fn xdr_of<T: ReadXdr>(v: &Value, name: &str) -> Res<T> {
    T::from_xdr_base64(str_of(v, name)?, Limits::none())
        .map_err(|e| format!("field `{name}` is not valid XDR: {e}"))
}

fn xdr_list<T: ReadXdr>(v: &Value, name: &str) -> Res<Vec<T>> {
    match v.get(name) {
        None | Some(Value::Null) => Ok(vec![]),
        Some(Value::Array(items)) => items
            .iter()
            .map(|i| {
                let s = i
                    .as_str()
                    .ok_or_else(|| format!("`{name}` holds a non-string"))?;
                T::from_xdr_base64(s, Limits::none())
                    .map_err(|e| format!("an item of `{name}` is not valid XDR: {e}"))
            })
            .collect(),
        _ => Err(format!("field `{name}` is not an array")),
    }
}

fn hex32(v: &Value, name: &str) -> Res<[u8; 32]> {
    let s = str_of(v, name)?;
    if s.len() != 64 || !s.is_ascii() {
        return Err(format!("field `{name}` is not 32 bytes of hex"));
    }
    let mut out = [0u8; 32];
    for (i, b) in out.iter_mut().enumerate() {
        *b = u8::from_str_radix(&s[2 * i..2 * i + 2], 16)
            .map_err(|_| format!("field `{name}` is not hex"))?;
    }
    Ok(out)
}

fn b64<T: WriteXdr>(v: &T) -> Res<String> {
    v.to_xdr_base64(Limits::none())
        .map_err(|e| format!("XDR encoding failed: {e}"))
}

/// The host returns the result as `ScVal` XDR; JSON carries it as base64.
fn b64_bytes(bytes: &[u8]) -> Res<String> {
    let v = ScVal::from_xdr(bytes, Limits::none()).map_err(|e| format!("bad result XDR: {e}"))?;
    b64(&v)
}

/// `ledger`: the `LedgerInfo` of the ledger being closed (or simulated on).
fn ledger_info(req: &Value) -> Res<LedgerInfo> {
    let l = field(req, "ledger")?;
    Ok(LedgerInfo {
        protocol_version: u32_of(l, "protocol_version")?,
        sequence_number: u32_of(l, "sequence_number")?,
        timestamp: u64_of(l, "timestamp")?,
        network_id: hex32(l, "network_id")?,
        base_reserve: u32_of(l, "base_reserve")?,
        min_temp_entry_ttl: u32_of(l, "min_temp_entry_ttl")?,
        min_persistent_entry_ttl: u32_of(l, "min_persistent_entry_ttl")?,
        max_entry_ttl: u32_of(l, "max_entry_ttl")?,
    })
}

/// `config`: the Soroban network settings the node holds (limits, fee schedule, rent, cost model).
fn network_config(req: &Value, ledger: &LedgerInfo) -> Res<NetworkConfig> {
    let c = field(req, "config")?;
    let fee = field(c, "fee")?;
    let rent = field(c, "rent")?;
    let (cpu_cost_params, memory_cost_params) = cost_params(c)?;
    Ok(NetworkConfig {
        fee_configuration: FeeConfiguration {
            fee_per_instruction_increment: i64_of(fee, "per_instruction_increment")?,
            fee_per_disk_read_entry: i64_of(fee, "per_disk_read_entry")?,
            fee_per_write_entry: i64_of(fee, "per_write_entry")?,
            fee_per_disk_read_1kb: i64_of(fee, "per_disk_read_1kb")?,
            fee_per_write_1kb: i64_of(fee, "per_write_1kb")?,
            fee_per_historical_1kb: i64_of(fee, "per_historical_1kb")?,
            fee_per_contract_event_1kb: i64_of(fee, "per_contract_event_1kb")?,
            fee_per_transaction_size_1kb: i64_of(fee, "per_transaction_size_1kb")?,
        },
        rent_fee_configuration: rent_config(fee, rent)?,
        tx_max_instructions: i64_of(c, "tx_max_instructions")?,
        tx_memory_limit: u32_of(c, "tx_memory_limit")?,
        cpu_cost_params,
        memory_cost_params,
        min_temp_entry_ttl: ledger.min_temp_entry_ttl,
        min_persistent_entry_ttl: ledger.min_persistent_entry_ttl,
        max_entry_ttl: ledger.max_entry_ttl,
    })
}

fn rent_config(fee: &Value, rent: &Value) -> Res<RentFeeConfiguration> {
    Ok(RentFeeConfiguration {
        fee_per_write_1kb: i64_of(fee, "per_write_1kb")?,
        fee_per_rent_1kb: i64_of(rent, "per_rent_1kb")?,
        fee_per_write_entry: i64_of(fee, "per_write_entry")?,
        persistent_rent_rate_denominator: i64_of(rent, "persistent_rent_rate_denominator")?,
        temporary_rent_rate_denominator: i64_of(rent, "temporary_rent_rate_denominator")?,
    })
}

/// The config's `cpu_cost_params`/`mem_cost_params` (base64 `ContractCostParams`), or the host's
/// built-in model when absent.
fn cost_params(c: &Value) -> Res<(ContractCostParams, ContractCostParams)> {
    match (c.get("cpu_cost_params"), c.get("mem_cost_params")) {
        (Some(Value::String(_)), Some(Value::String(_))) => {
            Ok((xdr_of(c, "cpu_cost_params")?, xdr_of(c, "mem_cost_params")?))
        }
        _ => {
            // Probing the model builds ~170 budgets: do it once per process.
            static BUILTIN: OnceLock<Res<(ContractCostParams, ContractCostParams)>> =
                OnceLock::new();
            BUILTIN.get_or_init(builtin_cost_params).clone()
        }
    }
}

/// Reads the host's built-in cost model back out of a default `Budget` (it has no getter for its
/// parameters): each cost type costs `const + (linear × input) >> 7`, so charging input 0 gives
/// the constant term and input 128 adds exactly the (scaled) linear term.
///
/// A default budget stops at 100M instructions, and the memory dimension is only charged when
/// the CPU charge fits: for a type whose 128-input probe exceeds that (BLS12-381 G2 MSM), the
/// CPU terms are still exact (CPU is counted before the limit check) and the memory linear term
/// is read at the largest input that fits, so it can be low by at most 128/input. The node is
/// meant to pass the network's own `ContractCostParams` instead (README.md).
fn builtin_cost_params() -> Res<(ContractCostParams, ContractCostParams)> {
    let mut cpu = vec![];
    let mut mem = vec![];
    // (charge ok, cpu consumed, mem consumed) of one charge on a fresh default budget.
    let measure = |ty: ContractCostType, input: Option<u64>| -> (bool, i64, i64) {
        let b = Budget::default();
        let ok = b.charge(ty, input).is_ok();
        let c = b.get_cpu_insns_consumed().unwrap_or(0) as i64;
        let m = b.get_mem_bytes_consumed().unwrap_or(0) as i64;
        (ok, c, m)
    };
    for ty in ContractCostType::VARIANTS {
        // A linear model takes `Some(input)`, a constant one `None`: the tracker refuses the
        // other form before charging anything.
        let (c0, m0, cl, ml) = match measure(ty, Some(0)) {
            (true, c0, m0) => match measure(ty, Some(128)) {
                (true, c1, m1) => (c0, m0, c1 - c0, m1 - m0),
                (false, c1, _) => {
                    let mut input = 127;
                    while input > 1 && !measure(ty, Some(input)).0 {
                        input -= 1;
                    }
                    let (_, _, mi) = measure(ty, Some(input));
                    (c0, m0, c1 - c0, (mi - m0) * 128 / input as i64)
                }
            },
            _ => match measure(ty, None) {
                (true, c, m) => (c, m, 0, 0),
                _ => return Err(format!("cost model probe failed for {ty:?}")),
            },
        };
        if cl < 0 || ml < 0 {
            return Err(format!("cost model probe of {ty:?} is not linear"));
        }
        cpu.push(ContractCostParamEntry {
            ext: ExtensionPoint::V0,
            const_term: c0,
            linear_term: cl,
        });
        mem.push(ContractCostParamEntry {
            ext: ExtensionPoint::V0,
            const_term: m0,
            linear_term: ml,
        });
    }
    let to = |v: Vec<ContractCostParamEntry>| -> Res<ContractCostParams> {
        Ok(ContractCostParams(
            v.try_into()
                .map_err(|_| "too many cost types".to_string())?,
        ))
    };
    Ok((to(cpu)?, to(mem)?))
}

fn resource_fee(req: &Value) -> Res<Value> {
    let ledger = ledger_info(req)?;
    let config = network_config(req, &ledger)?;
    let r = field(req, "resources")?;
    let resources = TransactionResources {
        instructions: u32_of(r, "instructions")?,
        disk_read_entries: u32_of(r, "disk_read_entries")?,
        write_entries: u32_of(r, "write_entries")?,
        disk_read_bytes: u32_of(r, "disk_read_bytes")?,
        write_bytes: u32_of(r, "write_bytes")?,
        contract_events_size_bytes: u32_of(r, "contract_events_size_bytes")?,
        transaction_size_bytes: u32_of(r, "transaction_size_bytes")?,
    };
    let (non_refundable, refundable) =
        compute_transaction_resource_fee(&resources, &config.fee_configuration);
    let mut out = Map::new();
    out.insert("non_refundable".into(), json!(non_refundable));
    out.insert("refundable".into(), json!(refundable));
    // What stellar-core's own RestoreFootprint/ExtendFootprintTTL operations ask the host for:
    // entry sizes for rent (a code entry counts its parsed module's memory, since protocol 23)
    // and the rent of a set of changes.
    if let Some(Value::Array(entries)) = req.get("sizes_for_rent") {
        let budget = Budget::try_from_configs(
            config.tx_max_instructions as u64,
            config.tx_memory_limit as u64,
            config.cpu_cost_params.clone(),
            config.memory_cost_params.clone(),
        )
        .map_err(|e| format!("budget: {e:?}"))?;
        let mut sizes = Vec::with_capacity(entries.len());
        for v in entries {
            let text = v.as_str().ok_or("`sizes_for_rent` holds a non-string")?;
            let entry = LedgerEntry::from_xdr_base64(text, Limits::none())
                .map_err(|e| format!("an item of `sizes_for_rent` is not valid XDR: {e}"))?;
            let xdr_size = entry
                .to_xdr(Limits::none())
                .map_err(|e| e.to_string())?
                .len();
            let size = e2e_invoke::entry_size_for_rent(&budget, &entry, xdr_size as u32)
                .map_err(|e| format!("entry_size_for_rent: {e:?}"))?;
            sizes.push(size);
        }
        out.insert("sizes_for_rent".into(), json!(sizes));
    }
    if let Some(Value::Array(changes)) = req.get("rent_changes") {
        let mut list = Vec::with_capacity(changes.len());
        for c in changes {
            list.push(LedgerEntryRentChange {
                is_persistent: c.get("persistent").and_then(Value::as_bool).unwrap_or(true),
                is_code_entry: c.get("code").and_then(Value::as_bool).unwrap_or(false),
                old_size_bytes: u32_of(c, "old_size")?,
                new_size_bytes: u32_of(c, "new_size")?,
                old_live_until_ledger: u32_of(c, "old_live_until")?,
                new_live_until_ledger: u32_of(c, "new_live_until")?,
            });
        }
        let fee = compute_rent_fee(
            &list,
            &config.rent_fee_configuration,
            ledger.sequence_number,
        );
        out.insert("rent_fee".into(), json!(fee));
    }
    Ok(Value::Object(out))
}

fn default_cost_params() -> Res<Value> {
    let (cpu, mem) = cost_params(&json!({}))?;
    Ok(json!({ "cpu": b64(&cpu)?, "mem": b64(&mem)? }))
}

// ---------------------------------------------------------------------------------------------
// Results

fn error_json(e: &HostError) -> Value {
    let sc: Option<ScError> = ScError::try_from(e.error).ok();
    json!({
        "sc_error": sc.as_ref().and_then(|s| b64(s).ok()),
        "text": format!("{:?}", e.error),
        "debug": truncate(format!("{e:?}"), 4000),
    })
}

fn truncate(mut s: String, n: usize) -> String {
    if s.len() > n {
        let mut cut = n;
        while !s.is_char_boundary(cut) {
            cut -= 1;
        }
        s.truncate(cut);
        s.push('…');
    }
    s
}

fn diagnostics_json(events: &[DiagnosticEvent]) -> Res<Vec<String>> {
    events.iter().map(b64).collect()
}

// ---------------------------------------------------------------------------------------------
// Module cache

/// Compiles Wasm outside any transaction, on an effectively unlimited budget, as stellar-core
/// does when it fills its module cache.
#[derive(Clone)]
struct Compiler(Budget);

impl ErrorHandler for Compiler {
    fn map_err<T, E>(&self, res: Result<T, E>) -> Result<T, HostError>
    where
        soroban_env_host::Error: From<E>,
        E: std::fmt::Debug,
    {
        res.map_err(|e| HostError::from(soroban_env_host::Error::from(e)))
    }

    fn error(&self, error: soroban_env_host::Error, _msg: &str, _args: &[Val]) -> HostError {
        HostError::from(error)
    }
}

impl AsBudget for Compiler {
    fn as_budget(&self) -> &Budget {
        &self.0
    }
}

impl CompilationContext for Compiler {}

thread_local! {
    // Since protocol 23 stellar-core keeps every contract's parsed module in a cache and the
    // transaction is not charged for parsing; without one the host parses (and charges) on each
    // call, and an invocation would exceed the instructions its simulation declared. This cache
    // lives for the process and learns each Wasm the first time a footprint carries it (core
    // refreshes its cache between ledgers, so a Wasm uploaded in the same ledger is the only
    // case where the two differ by the parse cost).
    static MODULES: RefCell<Option<(Compiler, ModuleCache)>> = const { RefCell::new(None) };
}

/// The process's module cache, with every `ContractCode` entry in `entries` parsed into it.
fn module_cache(
    config: &NetworkConfig,
    protocol: u32,
    entries: &[LedgerEntry],
) -> Res<ModuleCache> {
    MODULES.with(|cell| {
        let mut slot = cell.borrow_mut();
        if slot.is_none() {
            let budget = Budget::try_from_configs(
                u64::MAX / 4,
                u64::MAX / 4,
                config.cpu_cost_params.clone(),
                config.memory_cost_params.clone(),
            )
            .map_err(|e| format!("compiler budget: {e:?}"))?;
            let compiler = Compiler(budget);
            let cache = ModuleCache::new(&compiler).map_err(|e| format!("module cache: {e:?}"))?;
            *slot = Some((compiler, cache));
        }
        let (compiler, cache) = slot.as_ref().unwrap();
        for e in entries {
            if let soroban_env_host::xdr::LedgerEntryData::ContractCode(code) = &e.data {
                if !cache
                    .contains_module(&code.hash)
                    .map_err(|e| format!("{e:?}"))?
                {
                    cache
                        .parse_and_cache_module_simple(compiler, protocol, code.code.as_slice())
                        .map_err(|e| format!("cannot compile a contract's Wasm: {e:?}"))?;
                }
            }
        }
        Ok(cache.clone())
    })
}

fn invoke(req: &Value) -> Res<Value> {
    let ledger = ledger_info(req)?;
    let config = network_config(req, &ledger)?;
    let cpu_limit = u64_of(req, "cpu_limit").unwrap_or(config.tx_max_instructions as u64);
    let mem_limit = u64_of(req, "mem_limit").unwrap_or(config.tx_memory_limit as u64);
    let budget = Budget::try_from_configs(
        cpu_limit,
        mem_limit,
        config.cpu_cost_params.clone(),
        config.memory_cost_params.clone(),
    )
    .map_err(|e| format!("budget: {e:?}"))?;
    let host_fn: HostFunction = xdr_of(req, "host_function")?;
    let resources: SorobanResources = xdr_of(req, "resources")?;
    let source: AccountId = xdr_of(req, "source_account")?;
    let auth: Vec<SorobanAuthorizationEntry> = xdr_list(req, "auth")?;
    let seed = hex32(req, "prng_seed")?;
    let restored: Vec<u32> = match req.get("restored_rw_entry_indices") {
        Some(Value::Array(a)) => a
            .iter()
            .map(|x| {
                x.as_u64()
                    .map(|n| n as u32)
                    .ok_or("bad restored index".to_string())
            })
            .collect::<Res<_>>()?,
        _ => vec![],
    };

    // Footprint order: read-only keys, then read-write keys, one item each.
    let keys: Vec<&LedgerKey> = resources
        .footprint
        .read_only
        .iter()
        .chain(resources.footprint.read_write.iter())
        .collect();
    let items = match req.get("entries") {
        Some(Value::Array(a)) => a.as_slice(),
        _ => &[],
    };
    if items.len() != keys.len() {
        return Err(format!(
            "`entries` has {} items for a footprint of {} keys",
            items.len(),
            keys.len()
        ));
    }
    // The host takes the entries that exist (it derives their keys) and, beside each, its TTL
    // as an encoded `TtlEntry` (empty for entries without one).
    let mut encoded_entries: Vec<Vec<u8>> = Vec::with_capacity(items.len());
    let mut encoded_ttls: Vec<Vec<u8>> = Vec::with_capacity(items.len());
    let mut code_entries: Vec<LedgerEntry> = vec![];
    let read_only_len = resources.footprint.read_only.len();
    for (i, (key, item)) in keys.iter().zip(items).enumerate() {
        let Some(Value::String(s)) = item.get("entry") else {
            continue;
        };
        let entry = LedgerEntry::from_xdr_base64(s, Limits::none())
            .map_err(|e| format!("a footprint entry is not valid XDR: {e}"))?;
        encoded_entries.push(entry.to_xdr(Limits::none()).map_err(|e| e.to_string())?);
        if matches!(key, LedgerKey::ContractCode(_)) {
            code_entries.push(entry.clone());
        }
        if matches!(key, LedgerKey::ContractData(_) | LedgerKey::ContractCode(_)) {
            let mut live_until = u32_of(item, "live_until")
                .map_err(|_| "a contract entry in `entries` has no `live_until`".to_string())?;
            // An entry being restored from the archive enters the host as stellar-core loads
            // it: live again, with the TTL a restore gives (the host then charges it as new).
            let restoring = i >= read_only_len && restored.contains(&((i - read_only_len) as u32));
            if restoring && live_until < ledger.sequence_number {
                live_until = ledger
                    .min_live_until_ledger_checked(ContractDataDurability::Persistent)
                    .ok_or("ledger sequence overflows")?;
            }
            let key_bytes = key.to_xdr(Limits::none()).map_err(|e| e.to_string())?;
            let ttl = TtlEntry {
                key_hash: Hash(Sha256::digest(&key_bytes).into()),
                live_until_ledger_seq: live_until,
            };
            encoded_ttls.push(ttl.to_xdr(Limits::none()).map_err(|e| e.to_string())?);
        } else {
            encoded_ttls.push(vec![]);
        }
    }

    let enc = |v: &dyn Fn() -> Result<Vec<u8>, soroban_env_host::xdr::Error>| {
        v().map_err(|e| format!("XDR encoding failed: {e}"))
    };
    let host_fn_bytes = enc(&|| host_fn.to_xdr(Limits::none()))?;
    let resources_bytes = enc(&|| resources.to_xdr(Limits::none()))?;
    let source_bytes = enc(&|| source.to_xdr(Limits::none()))?;
    let auth_bytes: Vec<Vec<u8>> = auth
        .iter()
        .map(|a| a.to_xdr(Limits::none()).map_err(|e| e.to_string()))
        .collect::<Res<_>>()?;

    let cache = if bool_of(req, "no_module_cache") {
        None
    } else {
        Some(module_cache(
            &config,
            ledger.protocol_version,
            &code_entries,
        )?)
    };
    let mut diagnostics = vec![];
    let enable_diagnostics = bool_of(req, "diagnostics");
    let host_started = std::time::Instant::now();
    let outcome = e2e_invoke::invoke_host_function(
        &budget,
        enable_diagnostics,
        host_fn_bytes,
        resources_bytes,
        &restored,
        source_bytes,
        auth_bytes.into_iter(),
        ledger.clone(),
        encoded_entries.into_iter(),
        encoded_ttls.into_iter(),
        seed.to_vec(),
        &mut diagnostics,
        None,
        cache,
    );
    let mut out = run_json(&budget, host_started, &diagnostics)?;
    let result = match outcome {
        // Budget exhaustion or an internal error outside the invocation proper.
        Err(e) => {
            out.insert("error".into(), error_json(&e));
            return Ok(Value::Object(out));
        }
        Ok(r) => r,
    };
    match &result.encoded_invoke_result {
        Ok(bytes) => {
            out.insert("result".into(), json!(b64_bytes(bytes)?));
        }
        Err(e) => {
            out.insert("error".into(), error_json(e));
            return Ok(Value::Object(out));
        }
    }
    let changes = changes_json(&result.ledger_changes)?;
    let rent_changes = extract_rent_changes(&result.ledger_changes);
    let rent_fee = compute_rent_fee(
        &rent_changes,
        &config.rent_fee_configuration,
        ledger.sequence_number,
    );
    let events: Vec<String> = result
        .encoded_contract_events
        .iter()
        .map(|b| {
            soroban_env_host::xdr::ContractEvent::from_xdr(b, Limits::none())
                .map_err(|e| e.to_string())
                .and_then(|ev| b64(&ev))
        })
        .collect::<Res<_>>()?;
    out.insert("changes".into(), json!(changes));
    out.insert("events".into(), json!(events));
    out.insert("rent_fee".into(), json!(rent_fee));
    Ok(Value::Object(out))
}

/// What every host run reports whatever its outcome (apply and recording): time in the host,
/// the budget's CPU instructions and memory, and the diagnostic events.
fn run_json(
    budget: &Budget,
    host_started: std::time::Instant,
    diagnostics: &[DiagnosticEvent],
) -> Res<Map<String, Value>> {
    let mut out = Map::new();
    out.insert(
        "host_us".into(),
        json!(host_started.elapsed().as_micros() as u64),
    );
    out.insert(
        "cpu_insns".into(),
        json!(budget.get_cpu_insns_consumed().unwrap_or(0)),
    );
    out.insert(
        "mem_bytes".into(),
        json!(budget.get_mem_bytes_consumed().unwrap_or(0)),
    );
    out.insert(
        "diagnostic_events".into(),
        json!(diagnostics_json(diagnostics)?),
    );
    Ok(out)
}

/// Ledger changes as JSON: every footprint key, its new value (read-write keys), the sizes for
/// rent and the TTL change (old and new live-until ledger) of entries that have one.
fn changes_json(ledger_changes: &[LedgerEntryChange]) -> Res<Vec<Value>> {
    let mut changes = vec![];
    for c in ledger_changes {
        let key = LedgerKey::from_xdr(&c.encoded_key, Limits::none()).map_err(|e| e.to_string())?;
        let new_entry = match &c.encoded_new_value {
            Some(b) => {
                let e = LedgerEntry::from_xdr(b, Limits::none()).map_err(|e| e.to_string())?;
                json!(b64(&e)?)
            }
            None => Value::Null,
        };
        changes.push(json!({
            "read_only": c.read_only,
            "key": b64(&key)?,
            "entry": new_entry,
            "old_size_for_rent": c.old_entry_size_bytes_for_rent,
            "new_size_for_rent": c.new_entry_size_bytes_for_rent,
            "ttl": c.ttl_change.as_ref().map(|t| json!({
                "old_live_until": t.old_live_until_ledger,
                "new_live_until": t.new_live_until_ledger,
            })),
        }));
    }
    Ok(changes)
}

// ---------------------------------------------------------------------------------------------
// Simulation

struct CallbackSnapshot {
    cb: SnapshotCallback,
}

impl SnapshotSource for CallbackSnapshot {
    fn get(&self, key: &Rc<LedgerKey>) -> Result<Option<EntryWithLiveUntil>, HostError> {
        let internal = || HostError::from((ScErrorType::Storage, ScErrorCode::InternalError));
        let key_bytes = key.to_xdr(Limits::none()).map_err(|_| internal())?;
        // SAFETY: the embedder promised a callable `cb` for the duration of `vh_simulate`.
        let ptr = unsafe { (self.cb)(key_bytes.as_ptr(), key_bytes.len()) };
        if ptr.is_null() {
            return Ok(None);
        }
        // SAFETY: the callback's buffer layout is documented on `SnapshotCallback`.
        let (entry, live_until) = unsafe {
            let header = std::slice::from_raw_parts(ptr, 9);
            let len = u32::from_le_bytes(header[0..4].try_into().unwrap()) as usize;
            let live = u32::from_le_bytes(header[4..8].try_into().unwrap());
            let has_live = header[8] != 0;
            let body = std::slice::from_raw_parts(ptr.add(9), len);
            (
                LedgerEntry::from_xdr(body, Limits::none()).map_err(|_| internal())?,
                has_live.then_some(live),
            )
        };
        Ok(Some((Rc::new(entry), live_until)))
    }
}

fn simulate(req: &Value, cb: SnapshotCallback) -> Res<Value> {
    let ledger = ledger_info(req)?;
    let config = network_config(req, &ledger)?;
    let adjust = if req.get("adjust").and_then(Value::as_bool).unwrap_or(true) {
        SimulationAdjustmentConfig::default_adjustment()
    } else {
        SimulationAdjustmentConfig::no_adjustments()
    };
    let snapshot = Rc::new(CallbackSnapshot { cb });
    let op = req.get("op").and_then(Value::as_str).unwrap_or("invoke");
    match op {
        "extend_ttl" => {
            let keys: Vec<LedgerKey> = xdr_list(req, "keys")?;
            let r = simulate_extend_ttl_op(
                &*snapshot,
                &config,
                &adjust,
                &ledger,
                &keys,
                u32_of(req, "extend_to")?,
            )
            .map_err(|e| format!("simulation failed: {e:#}"))?;
            Ok(json!({ "transaction_data": b64(&r.transaction_data)? }))
        }
        "restore" => {
            let keys: Vec<LedgerKey> = xdr_list(req, "keys")?;
            let r = simulate_restore_op(&*snapshot, &config, &adjust, &ledger, &keys)
                .map_err(|e| format!("simulation failed: {e:#}"))?;
            Ok(json!({ "transaction_data": b64(&r.transaction_data)? }))
        }
        "invoke" => {
            let host_fn: HostFunction = xdr_of(req, "host_function")?;
            let source: AccountId = xdr_of(req, "source_account")?;
            let auth_mode = match req.get("auth") {
                Some(Value::Array(_)) => {
                    RecordingInvocationAuthMode::Enforcing(xdr_list(req, "auth")?)
                }
                _ => RecordingInvocationAuthMode::recording(
                    bool_of(req, "disable_non_root_auth"),
                    bool_of(req, "auth_v2"),
                ),
            };
            let host_started = std::time::Instant::now();
            let r = simulate_invoke_host_function_op(
                snapshot,
                &config,
                &adjust,
                &ledger,
                host_fn,
                auth_mode,
                &source,
                hex32(req, "prng_seed")?,
                bool_of(req, "diagnostics"),
            )
            .map_err(|e| format!("simulation failed: {e:#}"))?;
            let host_us = host_started.elapsed().as_micros() as u64;
            let mut out = Map::new();
            out.insert("host_us".into(), json!(host_us));
            match &r.invoke_result {
                Ok(v) => out.insert("result".into(), json!(b64(v)?)),
                Err(e) => out.insert("error".into(), error_json(e)),
            };
            out.insert(
                "auth".into(),
                json!(r.auth.iter().map(b64).collect::<Res<Vec<_>>>()?),
            );
            out.insert(
                "events".into(),
                json!(r.contract_events.iter().map(b64).collect::<Res<Vec<_>>>()?),
            );
            out.insert(
                "diagnostic_events".into(),
                json!(diagnostics_json(&r.diagnostic_events)?),
            );
            out.insert(
                "transaction_data".into(),
                match &r.transaction_data {
                    Some(d) => json!(b64(d)?),
                    None => Value::Null,
                },
            );
            out.insert("cpu_insns".into(), json!(r.simulated_instructions));
            out.insert("mem_bytes".into(), json!(r.simulated_memory));
            let modified: Vec<Value> = r
                .modified_entries
                .iter()
                .map(|d| -> Res<Value> {
                    Ok(json!({
                        "before": d.state_before.as_ref().map(b64).transpose()?,
                        "after": d.state_after.as_ref().map(b64).transpose()?,
                    }))
                })
                .collect::<Res<_>>()?;
            out.insert("modified".into(), json!(modified));
            Ok(Value::Object(out))
        }
        "record" => record(req, &ledger, &config, snapshot),
        other => Err(format!("unknown simulation op `{other}`")),
    }
}

/// `op: "record"`: one host function in recording mode (`invoke_host_function_in_recording_mode`,
/// the run under stellar-rpc's preflight) with its raw outcome — every ledger change with its
/// TTL change, not simulation's `modified` entries — so an embedder can apply the call directly
/// (the node's in-process API), TTL extensions and new entries' TTLs included.
fn record(
    req: &Value,
    ledger: &LedgerInfo,
    config: &NetworkConfig,
    snapshot: Rc<CallbackSnapshot>,
) -> Res<Value> {
    // The budget soroban-simulation gives a preflight: the network's per-transaction limits,
    // with its shadow limits (×10 CPU, ×2 memory) for the host's unmetered bookkeeping.
    let budget = Budget::try_from_configs_with_shadow_limits(
        config.tx_max_instructions as u64,
        config.tx_memory_limit as u64,
        (config.tx_max_instructions as u64).saturating_mul(10),
        (config.tx_memory_limit as u64).saturating_mul(2),
        config.cpu_cost_params.clone(),
        config.memory_cost_params.clone(),
    )
    .map_err(|e| format!("budget: {e:?}"))?;
    let host_fn: HostFunction = xdr_of(req, "host_function")?;
    let source: AccountId = xdr_of(req, "source_account")?;
    let auth_mode = match req.get("auth") {
        Some(Value::Array(_)) => RecordingInvocationAuthMode::Enforcing(xdr_list(req, "auth")?),
        _ => RecordingInvocationAuthMode::recording(
            bool_of(req, "disable_non_root_auth"),
            bool_of(req, "auth_v2"),
        ),
    };
    let mut diagnostics = vec![];
    let host_started = std::time::Instant::now();
    let outcome = invoke_host_function_in_recording_mode(
        &budget,
        bool_of(req, "diagnostics"),
        &host_fn,
        &source,
        auth_mode,
        ledger.clone(),
        snapshot,
        hex32(req, "prng_seed")?,
        &mut diagnostics,
    );
    let mut out = run_json(&budget, host_started, &diagnostics)?;
    let r = match outcome {
        // Budget exhaustion or an internal error outside the invocation proper.
        Err(e) => {
            out.insert("error".into(), error_json(&e));
            return Ok(Value::Object(out));
        }
        Ok(r) => r,
    };
    match &r.invoke_result {
        Ok(v) => out.insert("result".into(), json!(b64(v)?)),
        Err(e) => {
            out.insert("error".into(), error_json(e));
            return Ok(Value::Object(out));
        }
    };
    out.insert(
        "auth".into(),
        json!(r.auth.iter().map(b64).collect::<Res<Vec<_>>>()?),
    );
    out.insert(
        "events".into(),
        json!(r.contract_events.iter().map(b64).collect::<Res<Vec<_>>>()?),
    );
    out.insert("changes".into(), json!(changes_json(&r.ledger_changes)?));
    out.insert("resources".into(), json!(b64(&r.resources)?));
    out.insert(
        "restored_rw_entry_indices".into(),
        json!(r.restored_rw_entry_indices),
    );
    Ok(Value::Object(out))
}
