// The identity of every builtin and intrinsic (builtins.def), and what sema
// resolved each call to. The checker, codegen and the editor queries dispatch
// on these instead of comparing callee names: adding a builtin is one line in
// builtins.def, one row in sema's table and its semantics in each stage.
#pragma once

#include "argus/dsl/ast.h"
#include "argus/dsl/types.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace argus {

enum class BuiltinId : uint8_t {
  None, // not a builtin
#define ARGUS_BUILTIN(id, ns, name) id,
#include "argus/dsl/builtins.def"
#undef ARGUS_BUILTIN
};

// "thread_id", "nvvm.ldmatrix_x2"; "" for None.
std::string_view builtin_namespace(BuiltinId id);
std::string_view builtin_short_name(BuiltinId id);
std::string builtin_name(BuiltinId id);
std::optional<BuiltinId> builtin_by_name(std::string_view ns, std::string_view name);
// Every id but None, in the order of builtins.def.
std::span<const BuiltinId> all_builtin_ids();

// Families the stages treat alike.
bool is_launch_coordinate(BuiltinId id); // thread_id ... warpgroup_id
bool is_unary_math(BuiltinId id);        // exp, exp2, log, log2, sqrt, rsqrt, tanh
bool is_shuffle(BuiltinId id);
bool is_warp_vote(BuiltinId id);          // ballot, any_sync, all_sync
bool is_tensor_constructor(BuiltinId id); // make_shared, make_local, full
bool is_wgmma(BuiltinId id);              // nvvm.wgmma_m64k* (all forms)
bool is_matrix_multiply(BuiltinId id);    // nvvm mma, amdgpu mfma
bool is_ldmatrix(BuiltinId id);
bool is_transposed_ldmatrix(BuiltinId id);
bool is_cp_async(BuiltinId id);
bool is_atomic(BuiltinId id);        // atomic_add, atomic_max, atomic_min, atomic_exch, atomic_cas
bool is_register_load(BuiltinId id); // amdgpu raw_buffer_load_x*, ds_read_b128
bool is_intrinsic(BuiltinId id);     // nvvm.* or amdgpu.*
// Statements for the checker only: codegen emits nothing for them.
bool is_checker_only(BuiltinId id); // tag, assert_tag, assert_tag_eq, reset_tags, ...

// Bytes one cp.async or register load moves; 0 for the others.
int64_t transfer_bytes(BuiltinId id);
// The ldmatrix matrix count (1, 2 or 4); 0 for the others.
int ldmatrix_count(BuiltinId id);

namespace sema {

// What a call expression calls, as sema resolved it.
enum class CallKind : uint8_t {
  Unresolved, // an error was reported
  Builtin,    // a builtin or intrinsic: `builtin`
  Device,     // a @device function of the module: `device`
  Cast,       // a dtype used as a conversion, f32(x): `cast`
  Tile,       // the tensor method t.tile(shape)
};

struct CallTarget {
  CallKind kind = CallKind::Unresolved;
  BuiltinId builtin = BuiltinId::None;
  const ast::Function *device = nullptr;
  ScalarKind cast = ScalarKind::I32;
};

} // namespace sema
} // namespace argus
