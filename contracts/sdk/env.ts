// Soroban host functions (env.json, protocol 22), imported by their real module/export names.
// Every argument and result is a 64-bit Val (u64 here) except the raw integer pieces
// (i64/u64 in env.json) and StorageType, which is passed as a raw u64 (0 temporary,
// 1 persistent, 2 instance).

// --- x: context
@external("x", "0") export declare function obj_cmp(a: u64, b: u64): i64;
@external("x", "1") export declare function contract_event(topics: u64, data: u64): u64;
@external("x", "3") export declare function get_ledger_sequence(): u64;
@external("x", "4") export declare function get_ledger_timestamp(): u64;
@external("x", "5") export declare function fail_with_error(error: u64): u64;
@external("x", "7") export declare function get_current_contract_address(): u64;

// --- i: int
@external("i", "_") export declare function obj_from_u64(v: u64): u64;
@external("i", "0") export declare function obj_to_u64(obj: u64): u64;
@external("i", "3") export declare function obj_from_u128_pieces(hi: u64, lo: u64): u64;
@external("i", "4") export declare function obj_to_u128_lo64(obj: u64): u64;
@external("i", "5") export declare function obj_to_u128_hi64(obj: u64): u64;
@external("i", "6") export declare function obj_from_i128_pieces(hi: i64, lo: u64): u64;
@external("i", "7") export declare function obj_to_i128_lo64(obj: u64): u64;
@external("i", "8") export declare function obj_to_i128_hi64(obj: u64): i64;
@external("i", "9") export declare function obj_from_u256_pieces(hi_hi: u64, hi_lo: u64, lo_hi: u64, lo_lo: u64): u64;
@external("i", "c") export declare function obj_to_u256_hi_hi(obj: u64): u64;
@external("i", "d") export declare function obj_to_u256_hi_lo(obj: u64): u64;
@external("i", "e") export declare function obj_to_u256_lo_hi(obj: u64): u64;
@external("i", "f") export declare function obj_to_u256_lo_lo(obj: u64): u64;
@external("i", "g") export declare function obj_from_i256_pieces(hi_hi: i64, hi_lo: u64, lo_hi: u64, lo_lo: u64): u64;
@external("i", "j") export declare function obj_to_i256_hi_hi(obj: u64): i64;
@external("i", "k") export declare function obj_to_i256_hi_lo(obj: u64): u64;
@external("i", "l") export declare function obj_to_i256_lo_hi(obj: u64): u64;
@external("i", "m") export declare function obj_to_i256_lo_lo(obj: u64): u64;
@external("i", "q") export declare function u256_div(lhs: u64, rhs: u64): u64;
@external("i", "x") export declare function i256_mul(lhs: u64, rhs: u64): u64;
@external("i", "y") export declare function i256_div(lhs: u64, rhs: u64): u64;

// --- m: map
@external("m", "9") export declare function map_new_from_linear_memory(keys_pos: u64, vals_pos: u64, len: u64): u64;
@external("m", "a") export declare function map_unpack_to_linear_memory(map: u64, keys_pos: u64, vals_pos: u64, len: u64): u64;
@external("m", "1") export declare function map_get(m: u64, k: u64): u64;
@external("m", "3") export declare function map_len(m: u64): u64;

// --- v: vec
@external("v", "_") export declare function vec_new(): u64;
@external("v", "0") export declare function vec_put(v: u64, i: u64, x: u64): u64;
@external("v", "1") export declare function vec_get(v: u64, i: u64): u64;
@external("v", "3") export declare function vec_len(v: u64): u64;
@external("v", "6") export declare function vec_push_back(v: u64, x: u64): u64;
@external("v", "7") export declare function vec_pop_back(v: u64): u64;
@external("v", "d") export declare function vec_first_index_of(v: u64, x: u64): u64;
@external("v", "g") export declare function vec_new_from_linear_memory(vals_pos: u64, len: u64): u64;

// --- l: ledger (storage)
@external("l", "_") export declare function put_contract_data(k: u64, v: u64, t: u64): u64;
@external("l", "0") export declare function has_contract_data(k: u64, t: u64): u64;
@external("l", "1") export declare function get_contract_data(k: u64, t: u64): u64;
@external("l", "2") export declare function del_contract_data(k: u64, t: u64): u64;
@external("l", "7") export declare function extend_contract_data_ttl(k: u64, t: u64, threshold: u64, extend_to: u64): u64;
@external("l", "8") export declare function extend_current_contract_instance_and_code_ttl(threshold: u64, extend_to: u64): u64;

// --- d: call
@external("d", "_") export declare function call(contract: u64, func: u64, args: u64): u64;

// --- b: buf
@external("b", "j") export declare function symbol_new_from_linear_memory(lm_pos: u64, len: u64): u64;
@external("b", "k") export declare function string_len(s: u64): u64;

// --- a: address
@external("a", "0") export declare function require_auth(address: u64): u64;
@external("a", "3") export declare function authorize_as_curr_contract(auth_entries: u64): u64;

// --- additions for the Soroswap-ABI contracts (deploying, hashing, strings)
@external("l", "3") export declare function create_contract(deployer: u64, wasm_hash: u64, salt: u64): u64;
@external("l", "a") export declare function get_contract_id(deployer: u64, salt: u64): u64;
@external("b", "_") export declare function serialize_to_bytes(v: u64): u64;
@external("b", "e") export declare function bytes_append(b1: u64, b2: u64): u64;
@external("b", "8") export declare function bytes_len(b: u64): u64;
@external("b", "g") export declare function string_copy_to_linear_memory(s: u64, s_pos: u64, lm_pos: u64, len: u64): u64;
@external("b", "i") export declare function string_new_from_linear_memory(lm_pos: u64, len: u64): u64;
@external("c", "_") export declare function compute_hash_sha256(x: u64): u64;
@external("v", "4") export declare function vec_push_front(v: u64, x: u64): u64;
@external("d", "0") export declare function try_call(contract: u64, func: u64, args: u64): u64;
