// The host side of a generated file: assume/size checks (plain C++), typed
// launchers, the generic argus_launch entry and argus_artifact_describe
// (docs/artifacts.md; the structures are those of artifact_abi.h).
#include "lower_internal.h"

#include <algorithm>
#include <functional>

namespace argus::codegen::detail {

using ast::Expr;
using ast::ExprKind;
using sema::ScalarKind;
using sema::Symbol;
using sema::TypeKind;

std::string Lowerer::source_text(const Range &range) const {
  if (!file_.source)
    return "";
  const size_t begin = file_.source->offset(range.begin);
  const size_t end = file_.source->offset(range.end);
  std::string text = file_.source->text().substr(begin, end > begin ? end - begin : 0);
  // One line: collapse newlines and runs of spaces.
  std::string out;
  bool space = false;
  for (char c : text) {
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      space = true;
      continue;
    }
    if (space && !out.empty())
      out += ' ';
    space = false;
    out += c;
  }
  return out;
}

namespace {

void collect_names(const Expr &e, std::vector<std::string> &names) {
  if (e.kind == ExprKind::Name) {
    if (std::find(names.begin(), names.end(), e.name) == names.end())
      names.push_back(e.name);
  }
  for (const auto &op : e.operands)
    if (op)
      collect_names(*op, names);
}

std::vector<const Expr *> tuple_elements(const Expr &e) {
  std::vector<const Expr *> out;
  if (e.kind == ExprKind::Tuple) {
    for (const auto &op : e.operands)
      out.push_back(op.get());
  } else {
    out.push_back(&e);
  }
  return out;
}

std::string python_factor(const std::string &s) {
  for (char c : s)
    if (c == ' ')
      return "(" + s + ")";
  return s;
}

struct ParamInfo {
  const Symbol *symbol;
  size_t index; // among the non-constexpr parameters
  std::string name;
};

} // namespace

void Lowerer::host_for_kernel(const sema::FunctionInfo &info, KernelMeta &meta,
                              const std::vector<std::string> &launch_params) {
  const bool cuda = target_ == GpuTarget::Sm90;
  const std::string kname = info.function->name;
  const std::string kcpp = cpp_name(kname);
  SimpleContext context = simple_;
  std::vector<ParamInfo> params;
  for (const Symbol *p : info.params) {
    if (!p)
      continue;
    if (p->is_constexpr) {
      if (p->value)
        context.constants[p->name] = *p->value;
      continue;
    }
    params.push_back(ParamInfo{p, params.size(), cpp_name(p->name)});
  }
  std::set<std::string> scalar_names;
  for (const ParamInfo &p : params)
    if (!p.symbol->type.is_tensor())
      scalar_names.insert(p.symbol->name);
  auto host = [&](const Expr &e, const std::string &what) -> std::string {
    std::string why;
    auto text = print_simple(e, context, SimpleStyle::HostCpp, &why);
    if (!text) {
      error(e.range, what + " cannot be evaluated on the host: it uses " + why);
      return "0";
    }
    return *text;
  };
  auto python = [&](const Expr &e) -> std::string {
    auto text = print_simple(e, context, SimpleStyle::Python);
    return text ? *text : source_text(e.range);
  };
  // Scalars as int64 / double locals named like the parameters.
  auto scalar_locals = [&](const std::string &source_of) {
    std::string out;
    for (const ParamInfo &p : params) {
      if (p.symbol->type.is_tensor())
        continue;
      const bool fp = sema::is_float(p.symbol->type.scalar);
      out += "  const " + std::string(fp ? "double" : "int64_t") + " " + p.name + " = " +
             (source_of.empty() ? "arg_" + p.name
                                : source_of + "[" + std::to_string(p.index) + "]." +
                                      (fp ? "float_value" : "int_value")) +
             ";\n  (void)" + p.name + ";\n";
    }
    return out;
  };

  // Tensor shapes: Python for meta.json, C++ for the checks and the shape function.
  struct Shape {
    std::vector<const Expr *> dims;
    std::vector<const Expr *> strides; // empty: row-major
  };
  std::map<const Symbol *, Shape> shapes;
  for (size_t i = 0; i < info.function->params.size() && i < info.params.size(); ++i) {
    const Symbol *p = info.params[i];
    if (!p || !p->type.is_tensor())
      continue;
    const Expr *annotation = info.function->params[i].annotation.get();
    Shape shape;
    if (annotation && annotation->kind == ExprKind::Call && annotation->arg_count() >= 2) {
      shape.dims = tuple_elements(annotation->arg(0));
      if (annotation->arg_count() >= 3)
        shape.strides = tuple_elements(annotation->arg(1));
    }
    shapes[p] = shape;
  }
  for (ParamMeta &pm : meta.params) {
    for (const ParamInfo &p : params) {
      if (p.symbol->name != pm.name || !pm.is_tensor)
        continue;
      const Shape &shape = shapes[p.symbol];
      for (const Expr *d : shape.dims)
        pm.shape.push_back(python(*d));
      if (!shape.strides.empty()) {
        for (const Expr *s : shape.strides)
          pm.strides.push_back(python(*s));
      } else {
        for (size_t k = 0; k < pm.shape.size(); ++k) {
          std::string stride;
          for (size_t j = k + 1; j < pm.shape.size(); ++j)
            stride += (stride.empty() ? "" : " * ") + python_factor(pm.shape[j]);
          pm.strides.push_back(stride.empty() ? "1" : stride);
        }
      }
    }
  }
  for (const Expr *g : info.grid)
    meta.grid.push_back(python(*g));

  // ---- argus_check_<kernel>: plain C++ ----
  std::string check_args;
  std::string check_call;
  for (const ParamInfo &p : params) {
    if (!check_args.empty()) {
      check_args += ", ";
      check_call += ", ";
    }
    if (p.symbol->type.is_tensor()) {
      check_args += "const void *" + p.name;
      check_call += p.name;
    } else {
      const bool fp = sema::is_float(p.symbol->type.scalar);
      check_args += std::string(fp ? "double" : "int64_t") + " arg_" + p.name;
      check_call += std::string(fp ? "(double)" : "(int64_t)") + p.name;
    }
  }
  std::ostringstream check;
  check << "\n// " << kname
        << ": assumptions, arguments and grid (code 1: an assume fails, 2: a "
           "size or argument is invalid).\n";
  check << "extern \"C\" int argus_check_" << kname << "(" << check_args
        << (check_args.empty() ? "" : ", ")
        << "int64_t grid[3], char *error, size_t error_size) {\n";
  check << scalar_locals("");
  // Facts over tensor contents (a subscript or a generator) would need the
  // device's memory: the launcher leaves them to the checker (docs/checker.md).
  std::function<bool(const Expr &)> over_contents = [&](const Expr &e) {
    if (e.kind == ExprKind::Subscript || e.kind == ExprKind::Lambda)
      return true;
    for (const auto &op : e.operands)
      if (op && over_contents(*op))
        return true;
    return false;
  };
  for (const Expr *assumption : info.assumptions) {
    const std::string text = source_text(assumption->range);
    if (over_contents(*assumption)) {
      std::string line = text;
      std::replace(line.begin(), line.end(), '\n', ' ');
      check << "  // not checked on the host (tensor contents): assume(" << line << ")\n";
      continue;
    }
    meta.assumes.push_back(text);
    std::vector<std::string> names;
    collect_names(*assumption, names);
    std::string values_format;
    std::string values_args;
    for (const std::string &n : names) {
      if (scalar_names.count(n)) {
        const ParamInfo *p = nullptr;
        for (const ParamInfo &q : params)
          if (q.symbol->name == n)
            p = &q;
        const bool fp = p && sema::is_float(p->symbol->type.scalar);
        values_format += (values_format.empty() ? "" : ", ") + n + (fp ? " = %g" : " = %lld");
        values_args += fp ? ", " + p->name : ", (long long)" + (p ? p->name : n);
      } else if (auto it = context.constants.find(n); it != context.constants.end()) {
        values_format +=
            (values_format.empty() ? "" : ", ") + n + " = " + std::to_string(it->second);
      }
    }
    check << "  if (!(" << host(*assumption, "assume(" + text + ")") << "))\n";
    check << "    return argus_host_fail(error, error_size, 1, "
          << c_string(kname + ": assume(" + printf_escape(text) + ") does not hold" +
                      (values_format.empty() ? "" : " with " + values_format))
          << values_args << ");\n";
  }
  std::set<std::string> checked_dims;
  for (const ParamInfo &p : params) {
    if (!p.symbol->type.is_tensor())
      continue;
    check << "  if (" << p.name << " == NULL)\n";
    check << "    return argus_host_fail(error, error_size, 2, "
          << c_string(kname + ": tensor " + p.symbol->name + " is null") << ");\n";
    const Shape &shape = shapes[p.symbol];
    for (size_t d = 0; d < shape.dims.size(); ++d) {
      if (auto v = sema_.constant_of(*shape.dims[d]); v && *v > 0)
        continue;
      if (!checked_dims.insert(host(*shape.dims[d], "a dimension")).second)
        continue;
      const std::string text = source_text(shape.dims[d]->range);
      check << "  {\n    const int64_t dim = " << host(*shape.dims[d], "a dimension") << ";\n";
      check << "    if (dim <= 0)\n      return argus_host_fail(error, error_size, 2, "
            << c_string(kname + ": dimension " + std::to_string(d) + " of " + p.symbol->name +
                        " (" + printf_escape(text) + ") is %lld; sizes must be positive")
            << ", (long long)dim);\n  }\n";
    }
    if (buffer_loads_.count(p.symbol)) {
      // Raw buffer loads address the tensor with a byte offset computed in int32.
      check << "  {\n    uint64_t bytes = " << bytes_of(p.symbol->type.tensor->dtype) << ";\n";
      for (const Expr *d : shape.dims)
        check << "    if ((uint64_t)(" << host(*d, "a dimension")
              << ") > UINT64_C(2147483647) / bytes)\n      return argus_host_fail(error, "
                 "error_size, 2, "
              << c_string(kname + ": tensor " + p.symbol->name +
                          " is read by raw buffer loads and must be under 2 GiB")
              << ");\n    bytes *= (uint64_t)(" << host(*d, "a dimension") << ");\n";
      check << "  }\n";
    }
  }
  check << "  grid[0] = 1;\n  grid[1] = 1;\n  grid[2] = 1;\n";
  for (size_t g = 0; g < info.grid.size() && g < 3; ++g)
    check << "  grid[" << g << "] = " << host(*info.grid[g], "the grid") << ";\n";
  check << "  if (grid[0] < 1 || grid[0] > INT64_C(2147483647) || grid[1] < 1 || grid[1] > 65535 "
           "||\n      grid[2] < 1 || grid[2] > 65535)\n";
  check << "    return argus_host_fail(error, error_size, 2, "
        << c_string(kname + ": grid (%lld, %lld, %lld) is empty or too large")
        << ", (long long)grid[0], (long long)grid[1], (long long)grid[2]);\n";
  if (info.cluster_size() > 1) { // __cluster_dims__: the launch needs whole clusters
    const auto &c = info.cluster;
    check << "  if (grid[0] % " << c[0] << " != 0 || grid[1] % " << c[1] << " != 0 || grid[2] % "
          << c[2] << " != 0)\n";
    check << "    return argus_host_fail(error, error_size, 2, "
          << c_string(kname + ": grid (%lld, %lld, %lld) is not a whole number of clusters (" +
                      std::to_string(c[0]) + ", " + std::to_string(c[1]) + ", " +
                      std::to_string(c[2]) + ")")
          << ", (long long)grid[0], (long long)grid[1], (long long)grid[2]);\n";
  }
  check << "  return 0;\n}\n";
  host_checks_ += check.str();

  // ---- argus_launch_<kernel>: typed launcher ----
  std::ostringstream launcher;
  const std::string stream_t = cuda ? "cudaStream_t" : "hipStream_t";
  const std::string rt = cuda ? "cuda" : "hip";
  launcher << "\nextern \"C\" int argus_launch_" << kname << "(";
  for (const std::string &lp : launch_params)
    launcher << lp << ", ";
  launcher << stream_t << " stream, char *error, size_t error_size) {\n";
  launcher << "  int64_t grid[3] = {1, 1, 1};\n";
  launcher << "  const int status = argus_check_" << kname << "(" << check_call
           << (check_call.empty() ? "" : ", ") << "grid, error, error_size);\n";
  launcher << "  if (status != 0)\n    return status;\n";
  if (meta.dynamic_shared_bytes > 0) {
    if (!cuda)
      launcher << "#if !defined(ARGUS_HIP_MODULE)\n";
    launcher << "  const " << rt << "Error_t attribute = " << rt << "FuncSetAttribute(" << kcpp
             << ", " << rt << "FuncAttributeMaxDynamicSharedMemorySize, "
             << meta.dynamic_shared_bytes << ");\n";
    launcher << "  if (attribute != " << rt << "Success)\n";
    launcher << "    return argus_host_fail(error, error_size, 4, "
             << c_string(kname + ": cannot allow %d bytes of dynamic shared memory: %s") << ", "
             << meta.dynamic_shared_bytes << ", " << rt << "GetErrorString(attribute));\n";
    if (!cuda)
      launcher << "#endif\n";
  }
  std::string call_args;
  for (const ParamInfo &p : params)
    call_args += (call_args.empty() ? "" : ", ") + p.name;
  for (const TensorMap &map : tensor_maps_) { // sm90 only: tma_load/tma_store are nvvm intrinsics
    // The tensor as rows of its last extent; with three or more dimensions
    // in pages of its second-last extent (a 3-D map: a box stays in a page).
    const ParamInfo *tensor = nullptr;
    for (const ParamInfo &p : params)
      if (p.symbol == map.tensor)
        tensor = &p;
    const Shape &shape = shapes[map.tensor];
    if (!tensor || shape.dims.empty()) {
      error(info.function->name_range,
            "the tensor map of a tma_load or tma_store has no tensor shape");
      continue;
    }
    const Buffer &b = buffers_[static_cast<size_t>(param_buffers_[map.tensor])];
    const int eb = bytes_of(b.dtype);
    const bool paged = shape.dims.size() > 2;
    std::string pages = "(uint64_t)1";
    for (size_t d = 0; d + 2 < shape.dims.size(); ++d)
      pages += " * (uint64_t)(" + host(*shape.dims[d], "a dimension") + ")";
    const std::string page_rows =
        shape.dims.size() >= 2
            ? "(uint64_t)(" + host(*shape.dims[shape.dims.size() - 2], "a dimension") + ")"
            : "(uint64_t)1";
    const std::string tensor_name = map.tensor->name;
    launcher << "  CUtensorMap " << map.name << ";\n  {\n";
    launcher << "    const uint64_t cols = (uint64_t)(" << host(*shape.dims.back(), "a dimension")
             << "), page_rows = " << page_rows << ", pages = " << pages
             << ", rows = page_rows * pages;\n";
    launcher << "    if ((uintptr_t)" << tensor->name << " % 16 != 0 || cols * " << eb
             << " % 16 != 0 || rows > (UINT64_C(1) << 31))\n";
    launcher << "      return argus_host_fail(error, error_size, 2, "
             << c_string(kname + ": tensor " + tensor_name +
                         " is accessed by TMA: its address must be 16-byte aligned, its rows (%llu "
                         "bytes) a multiple of 16 bytes and under 2^31 of them (%llu)")
             << ", (unsigned long long)(cols * " << eb << "), (unsigned long long)rows);\n";
    launcher << "    const CUresult built = argus_tensor_map(&" << map.name << ", " << eb
             << ", (void *)" << tensor->name << ", " << (paged ? 3 : 2)
             << ", cols, page_rows, pages, " << map.box_cols << ", " << map.box_rows << ", "
             << map.swizzle_bytes << ");\n";
    launcher << "    if (built != CUDA_SUCCESS)\n";
    launcher << "      return argus_host_fail(error, error_size, 4, "
             << c_string(kname + ": cannot build the TMA tensor map of " + tensor_name +
                         " (CUresult %d)")
             << ", (int)built);\n  }\n";
    call_args += (call_args.empty() ? "" : ", ") + map.name;
  }
  const std::string dims = "dim3((unsigned)grid[0], (unsigned)grid[1], (unsigned)grid[2]), dim3(" +
                           std::to_string(meta.block[0]) + ", " + std::to_string(meta.block[1]) +
                           ", " + std::to_string(meta.block[2]) + ")";
  if (cuda) {
    launcher << "  " << kcpp << "<<<" << dims << ", " << meta.dynamic_shared_bytes << ", stream>>>("
             << call_args << ");\n";
    launcher << "  const cudaError_t launched = cudaGetLastError();\n";
  } else {
    // The module path passes each argument's address (hipModuleLaunchKernel).
    std::string addresses;
    for (const ParamInfo &p : params)
      addresses += (addresses.empty() ? "" : ", ") + std::string("(void *)&") + p.name;
    launcher << "#if defined(ARGUS_HIP_MODULE)\n";
    launcher << "  void *argus_params[] = {" << (addresses.empty() ? "NULL" : addresses) << "};\n";
    launcher << "  const hipError_t launched = argus_hip_module_launch(" << c_string(kname) << ", "
             << dims << ", " << meta.dynamic_shared_bytes << ", stream, argus_params);\n";
    launcher << "#else\n";
    launcher << "  hipLaunchKernelGGL(" << kcpp << ", " << dims << ", " << meta.dynamic_shared_bytes
             << ", stream" << (call_args.empty() ? "" : ", ") << call_args << ");\n";
    launcher << "  const hipError_t launched = hipGetLastError();\n";
    launcher << "#endif\n";
  }
  launcher << "  if (launched != " << rt << "Success)\n";
  launcher << "    return argus_host_fail(error, error_size, 4, "
           << c_string(kname + ": launch failed: %s") << ", " << rt
           << "GetErrorString(launched));\n";
  launcher << "  return 0;\n}\n";
  launchers_.push_back(launcher.str());

  // ---- the generic entry's case ----
  std::ostringstream dispatch;
  std::string names_list;
  for (const ParamInfo &p : params)
    names_list += (names_list.empty() ? "" : ", ") + p.symbol->name;
  dispatch << "  if (strcmp(kernel, " << c_string(kname) << ") == 0) {\n";
  dispatch << "    if (nargs != " << params.size() << " || (nargs > 0 && args == NULL))\n";
  dispatch << "      return argus_host_fail(error, error_size, 2, "
           << c_string(kname + ": expected " + std::to_string(params.size()) + " arguments (" +
                       names_list + "), got %d")
           << ", nargs);\n";
  std::string typed_call;
  for (const ParamInfo &p : params) {
    const std::string i = std::to_string(p.index);
    dispatch << "    if (args[" << i << "].name != NULL && strcmp(args[" << i << "].name, "
             << c_string(p.symbol->name) << ") != 0)\n";
    dispatch << "      return argus_host_fail(error, error_size, 2, "
             << c_string(kname + ": argument " + i + " is '%s', expected '" + p.symbol->name + "'")
             << ", args[" << i << "].name);\n";
    typed_call += typed_call.empty() ? "" : ", ";
    if (p.symbol->type.is_tensor()) {
      const Buffer &b = buffers_[static_cast<size_t>(param_buffers_[p.symbol])];
      dispatch << "    if (args[" << i << "].kind != ARGUS_ARG_TENSOR)\n";
      dispatch << "      return argus_host_fail(error, error_size, 2, "
               << c_string(kname + ": argument " + p.symbol->name + " must be a tensor") << ");\n";
      typed_call += "(" + std::string(b.written ? "" : "const ") + type_name(b.dtype, target_) +
                    " *)args[" + i + "].data";
    } else {
      const ScalarKind k = p.symbol->type.scalar;
      const std::string t = type_name(k, target_);
      if (sema::is_float(k)) {
        dispatch << "    if (args[" << i << "].kind != ARGUS_ARG_FLOAT && args[" << i
                 << "].kind != ARGUS_ARG_INT)\n";
        dispatch << "      return argus_host_fail(error, error_size, 2, "
                 << c_string(kname + ": argument " + p.symbol->name + " must be a number")
                 << ");\n";
        const std::string value = "(args[" + i + "].kind == ARGUS_ARG_FLOAT ? args[" + i +
                                  "].float_value : (double)args[" + i + "].int_value)";
        if (k == ScalarKind::F32 || k == ScalarKind::F64)
          typed_call += "(" + t + ")" + value;
        else
          typed_call += convert("(float)" + value, ScalarKind::F32, k);
      } else {
        dispatch << "    if (args[" << i << "].kind != ARGUS_ARG_INT)\n";
        dispatch << "      return argus_host_fail(error, error_size, 2, "
                 << c_string(kname + ": argument " + p.symbol->name + " must be an integer")
                 << ");\n";
        if (k == ScalarKind::I32 || k == ScalarKind::I16 || k == ScalarKind::I8 ||
            k == ScalarKind::U32 || k == ScalarKind::U16 || k == ScalarKind::U8) {
          const int bits = sema::bit_width(k);
          const bool is_unsigned = !sema::is_signed(k);
          const std::string lo =
              is_unsigned ? "0" : "-(INT64_C(1) << " + std::to_string(bits - 1) + ")";
          const std::string hi =
              "(INT64_C(1) << " + std::to_string(is_unsigned ? bits : bits - 1) + ") - 1";
          dispatch << "    if (args[" << i << "].int_value < " << lo << " || args[" << i
                   << "].int_value > " << hi << ")\n";
          dispatch << "      return argus_host_fail(error, error_size, 2, "
                   << c_string(kname + ": argument " + p.symbol->name + " = %lld does not fit " +
                               sema::to_string(k))
                   << ", (long long)args[" << i << "].int_value);\n";
        }
        typed_call += "(" + t + ")args[" + i + "].int_value";
      }
    }
  }
  dispatch << "    return argus_launch_" << kname << "(" << typed_call
           << (typed_call.empty() ? "" : ", ") << "(" << stream_t
           << ")stream, error, error_size);\n  }\n";
  dispatch_.push_back(dispatch.str());

  // ---- describe (artifact_abi.h): parameters, shapes, benches ----
  std::ostringstream describe;
  describe << "\nstatic const ArgusParamInfo argus_params_" << kname << "[] = {\n";
  std::vector<const ParamInfo *> scalars;
  for (const ParamInfo &p : params) {
    const bool tensor = p.symbol->type.is_tensor();
    int rank = 0;
    bool output = false;
    std::string dtype;
    if (tensor) {
      const Buffer &b = buffers_[static_cast<size_t>(param_buffers_[p.symbol])];
      rank = static_cast<int>(shapes[p.symbol].dims.size());
      output = b.written;
      dtype = sema::to_string(b.dtype);
    } else {
      dtype = sema::to_string(p.symbol->type.scalar);
      scalars.push_back(&p);
    }
    const std::string kind = tensor                                  ? "ARGUS_ARG_TENSOR"
                             : sema::is_float(p.symbol->type.scalar) ? "ARGUS_ARG_FLOAT"
                                                                     : "ARGUS_ARG_INT";
    const bool sm_count = !tensor && sema::defaults_to_num_sms(*info.function, p.symbol->name);
    // {name, kind, dtype, is_output, rank, default_num_sms}
    describe << "    {" << c_string(p.symbol->name) << ", " << kind << ", " << c_string(dtype)
             << ", " << (output ? 1 : 0) << ", " << rank << ", " << (sm_count ? 1 : 0) << "},\n";
  }
  if (params.empty())
    describe << "    {NULL, 0, NULL, 0, 0, 0},\n";
  describe << "};\n";
  // Shapes from the values of the scalar parameters (scalars[i]: the i-th one).
  describe << "static int argus_shape_" << kname
           << "(int param, const int64_t *scalars, int64_t *dims, int64_t *strides) {\n";
  describe << "  (void)scalars;\n  (void)dims;\n  (void)strides;\n";
  for (size_t j = 0; j < scalars.size(); ++j) {
    const bool fp = sema::is_float(scalars[j]->symbol->type.scalar);
    describe << "  const " << (fp ? "double" : "int64_t") << " " << scalars[j]->name
             << " = scalars[" << j << "];\n  (void)" << scalars[j]->name << ";\n";
  }
  describe << "  switch (param) {\n";
  for (const ParamInfo &p : params) {
    if (!p.symbol->type.is_tensor())
      continue;
    const Shape &shape = shapes[p.symbol];
    describe << "  case " << p.index << ":\n";
    std::vector<std::string> dim_text;
    for (size_t d = 0; d < shape.dims.size(); ++d) {
      dim_text.push_back(host(*shape.dims[d], "a dimension"));
      describe << "    dims[" << d << "] = " << dim_text.back() << ";\n";
    }
    for (size_t d = 0; d < shape.dims.size(); ++d) {
      std::string stride;
      if (!shape.strides.empty()) {
        stride = host(*shape.strides[d], "a stride");
      } else {
        for (size_t j = d + 1; j < dim_text.size(); ++j)
          stride += (stride.empty() ? "" : " * ") + dim_text[j];
        if (stride.empty())
          stride = "INT64_C(1)";
      }
      describe << "    strides[" << d << "] = " << stride << ";\n";
    }
    describe << "    for (int d = 0; d < " << shape.dims.size() << "; ++d)\n"
             << "      if (dims[d] <= 0)\n        return 2;\n";
    describe << "    return 0;\n";
  }
  describe << "  default:\n    return 1;\n  }\n}\n";

  // Benches.
  int bench_index = 0;
  for (const sema::BenchInfo &bench : info.benches) {
    BenchMeta bm;
    std::map<std::string, int64_t> values;
    for (const ParamInfo &p : params) {
      auto it = bench.sizes.find(p.symbol->name);
      if (it != bench.sizes.end()) {
        bm.sizes.emplace_back(it->first, it->second);
        values[it->first] = it->second;
      }
    }
    bm.reference = bench.reference;
    bm.before = bench.before;
    if (bench.flops) {
      bm.flops = python(*bench.flops);
      bm.flops_value = evaluate_simple(*bench.flops, context, values);
    }
    if (bench.bytes) {
      bm.bytes = python(*bench.bytes);
      bm.bytes_value = evaluate_simple(*bench.bytes, context, values);
    }
    const std::string suffix = kname + "_" + std::to_string(bench_index);
    describe << "static const char *const argus_bench_names_" << suffix << "[] = {";
    for (const auto &size : bm.sizes)
      describe << c_string(size.first) << ", ";
    if (bm.sizes.empty())
      describe << "NULL";
    describe << "};\nstatic const int64_t argus_bench_values_" << suffix << "[] = {";
    for (const auto &size : bm.sizes)
      describe << "INT64_C(" << size.second << "), ";
    if (bm.sizes.empty())
      describe << "0";
    describe << "};\n";
    auto count = [](const std::optional<int64_t> &v) {
      return v ? std::to_string(*v) + ".0" : std::string("0.0");
    };
    std::ostringstream bench_info;
    std::string before; // kernel names (identifiers), comma-separated
    for (const std::string &k : bm.before)
      before += (before.empty() ? "" : ",") + k;
    // {kernel, reference, nsizes, size_names, size_values, flops, bytes, before}
    bench_info << "    {" << c_string(kname) << ", "
               << (bench.reference.empty() ? "NULL" : c_string(bench.reference)) << ", "
               << bm.sizes.size() << ", argus_bench_names_" << suffix << ", argus_bench_values_"
               << suffix << ", " << count(bm.flops_value) << ", " << count(bm.bytes_value) << ", "
               << (before.empty() ? "NULL" : c_string(before)) << "},\n";
    bench_infos_.push_back(bench_info.str());
    meta.benches.push_back(bm);
    ++bench_index;
  }
  describe_.push_back(describe.str());
  // {name, nparams, params}
  kernel_infos_.push_back("    {" + c_string(kname) + ", " + std::to_string(params.size()) +
                          ", argus_params_" + kname + "},\n");
  shape_dispatch_.push_back("  if (strcmp(kernel, " + c_string(kname) +
                            ") == 0)\n    return argus_shape_" + kname +
                            "(param_index, scalars, shape_out, strides_out);\n");
}

namespace {

// Tensor maps for tma_load, encoded through the driver's entry point as the
// runtime returns it: no link against libcuda. Elements are moved as bits,
// so the map's type is the unsigned integer of their width.
constexpr std::string_view kTensorMapHelper = R"(
typedef CUresult (*argus_encode_tiled_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *,
                                          const cuuint64_t *, const cuuint64_t *,
                                          const cuuint32_t *, const cuuint32_t *,
                                          CUtensorMapInterleave, CUtensorMapSwizzle,
                                          CUtensorMapL2promotion, CUtensorMapFloatOOBfill);
static CUresult argus_tensor_map(CUtensorMap *map, int element_bytes, void *base, int rank,
                                 uint64_t cols, uint64_t page_rows, uint64_t pages,
                                 uint32_t box_cols, uint32_t box_rows, int swizzle_bytes) {
  static argus_encode_tiled_fn encode = NULL;
  if (encode == NULL) {
    void *fn = NULL;
    cudaDriverEntryPointQueryResult found = cudaDriverEntryPointSymbolNotFound;
    if (cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", &fn, 12000, cudaEnableDefault,
                                         &found) != cudaSuccess ||
        found != cudaDriverEntryPointSuccess || fn == NULL)
      return CUDA_ERROR_NOT_FOUND;
    encode = (argus_encode_tiled_fn)fn;
  }
  const CUtensorMapDataType type = element_bytes == 1   ? CU_TENSOR_MAP_DATA_TYPE_UINT8
                                   : element_bytes == 2 ? CU_TENSOR_MAP_DATA_TYPE_UINT16
                                   : element_bytes == 4 ? CU_TENSOR_MAP_DATA_TYPE_UINT32
                                                        : CU_TENSOR_MAP_DATA_TYPE_INT64;
  const CUtensorMapSwizzle swizzle = swizzle_bytes == 128  ? CU_TENSOR_MAP_SWIZZLE_128B
                                     : swizzle_bytes == 64 ? CU_TENSOR_MAP_SWIZZLE_64B
                                     : swizzle_bytes == 32 ? CU_TENSOR_MAP_SWIZZLE_32B
                                                           : CU_TENSOR_MAP_SWIZZLE_NONE;
  // rank 2: (cols, page_rows * pages); rank 3: (cols, page_rows, pages).
  const cuuint64_t dims[3] = {cols, rank == 2 ? page_rows * pages : page_rows, pages};
  const cuuint64_t strides[2] = {cols * (uint64_t)element_bytes,
                                 page_rows * cols * (uint64_t)element_bytes};
  const cuuint32_t box[3] = {box_cols, box_rows, 1};
  const cuuint32_t element_strides[3] = {1, 1, 1};
  return encode(map, type, (cuuint32_t)rank, base, dims, strides, box, element_strides,
                CU_TENSOR_MAP_INTERLEAVE_NONE, swizzle, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
                CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}
)";

} // namespace

void Lowerer::host_tail(const std::vector<KernelMeta> &metas) {
  const bool cuda = target_ == GpuTarget::Sm90;
  std::ostringstream out;
  out << "\n// ---- host: launchers (docs/artifacts.md) ----\n";
  if (cuda)
    out << "#if !defined(ARGUS_DEVICE_ONLY)\n";
  else
    out << "#if !defined(ARGUS_DEVICE_ONLY) && !defined(__HIP_DEVICE_COMPILE__)\n"
           "#include <hip/hip_runtime.h>\n"
           "#if defined(ARGUS_HIP_MODULE)\n"
           "// Defined by the runner: launches `kernel` of the code object it loaded.\n"
           "extern \"C\" hipError_t argus_hip_module_launch(const char *kernel, dim3 grid, dim3 "
           "block,\n"
           "                                              unsigned shared_bytes, hipStream_t "
           "stream,\n"
           "                                              void **params);\n"
           "#endif\n";
  out << "#include \"artifact_abi.h\"\n";
  if (cuda && uses_tensor_maps_)
    out << kTensorMapHelper;
  for (const std::string &l : launchers_)
    out << l;
  out << "\nextern \"C\" int argus_launch(const char *kernel, const ArgusArg *args, int nargs, "
         "void *stream,\n                            char *error, size_t error_size) {\n";
  out << "  if (kernel == NULL)\n    return argus_host_fail(error, error_size, 3, \"no kernel "
         "name\");\n";
  for (const std::string &d : dispatch_)
    out << d;
  std::string known;
  for (const KernelMeta &m : metas)
    known += (known.empty() ? "" : ", ") + m.name;
  out << "  return argus_host_fail(error, error_size, 3, "
      << c_string("unknown kernel '%s' (this artifact has: " + known + ")") << ", kernel);\n}\n";
  out << "\n// ---- host: what the runner needs to know (artifact_abi.h) ----\n";
  for (const std::string &d : describe_)
    out << d;
  out << "\nstatic const ArgusKernelInfo argus_kernels[] = {\n";
  for (const std::string &k : kernel_infos_)
    out << k;
  out << "};\n";
  out << "extern \"C\" int argus_artifact_kernels(const ArgusKernelInfo **kernels) {\n"
      << "  *kernels = argus_kernels;\n  return " << kernel_infos_.size() << ";\n}\n";
  if (!bench_infos_.empty()) {
    out << "static const ArgusBenchInfo argus_benches[] = {\n";
    for (const std::string &b : bench_infos_)
      out << b;
    out << "};\n";
  }
  out << "extern \"C\" int argus_artifact_benches(const ArgusBenchInfo **benches) {\n"
      << "  *benches = " << (bench_infos_.empty() ? "NULL" : "argus_benches") << ";\n  return "
      << bench_infos_.size() << ";\n}\n";
  out << "extern \"C\" int argus_tensor_shape(const char *kernel, int param_index, const int64_t "
         "*scalars,\n                                  int64_t *shape_out, int64_t *strides_out) "
         "{\n  if (kernel == NULL)\n    return 1;\n";
  for (const std::string &d : shape_dispatch_)
    out << d;
  out << "  return 1;\n}\n";
  out << "#endif // host\n";
  host_code_ = out.str();
}

} // namespace argus::codegen::detail
