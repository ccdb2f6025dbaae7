// meta.json, bench.json and the artifact directory (docs/artifacts.md).
#include "argus/codegen/artifact.h"

#include <array>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <fstream>

namespace argus::codegen {

namespace {

uint32_t rotr(uint32_t x, int n) { return (x >> n) | (x << (32 - n)); }

} // namespace

std::string sha256_hex(std::string_view data) {
  static const std::array<uint32_t, 64> k = {
      0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
      0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
      0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
      0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
      0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
      0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
      0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
      0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
      0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
      0xc67178f2};
  std::array<uint32_t, 8> h = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
                               0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};
  std::string msg(data);
  const uint64_t bit_length = static_cast<uint64_t>(data.size()) * 8;
  msg += static_cast<char>(0x80);
  while (msg.size() % 64 != 56)
    msg += '\0';
  for (int i = 7; i >= 0; --i)
    msg += static_cast<char>((bit_length >> (8 * i)) & 0xff);
  for (size_t chunk = 0; chunk < msg.size(); chunk += 64) {
    std::array<uint32_t, 64> w{};
    for (int i = 0; i < 16; ++i) {
      w[i] = 0;
      for (int b = 0; b < 4; ++b)
        w[i] = (w[i] << 8) | static_cast<unsigned char>(msg[chunk + 4 * i + b]);
    }
    for (int i = 16; i < 64; ++i) {
      const uint32_t s0 = rotr(w[i - 15], 7) ^ rotr(w[i - 15], 18) ^ (w[i - 15] >> 3);
      const uint32_t s1 = rotr(w[i - 2], 17) ^ rotr(w[i - 2], 19) ^ (w[i - 2] >> 10);
      w[i] = w[i - 16] + s0 + w[i - 7] + s1;
    }
    auto v = h;
    for (int i = 0; i < 64; ++i) {
      const uint32_t s1 = rotr(v[4], 6) ^ rotr(v[4], 11) ^ rotr(v[4], 25);
      const uint32_t ch = (v[4] & v[5]) ^ (~v[4] & v[6]);
      const uint32_t t1 = v[7] + s1 + ch + k[i] + w[i];
      const uint32_t s0 = rotr(v[0], 2) ^ rotr(v[0], 13) ^ rotr(v[0], 22);
      const uint32_t maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
      const uint32_t t2 = s0 + maj;
      v[7] = v[6];
      v[6] = v[5];
      v[5] = v[4];
      v[4] = v[3] + t1;
      v[3] = v[2];
      v[2] = v[1];
      v[1] = v[0];
      v[0] = t1 + t2;
    }
    for (int i = 0; i < 8; ++i)
      h[i] += v[i];
  }
  std::string out;
  char buffer[9];
  for (uint32_t x : h) {
    std::snprintf(buffer, sizeof buffer, "%08x", x);
    out += buffer;
  }
  return out;
}

nlohmann::json meta_json(const LowerResult &lowered, GpuTarget target, const ArtifactInput &input) {
  nlohmann::json kernels = nlohmann::json::array();
  for (const KernelMeta &k : lowered.kernels) {
    nlohmann::json params = nlohmann::json::array();
    for (const ParamMeta &p : k.params) {
      nlohmann::json j = {
          {"name", p.name}, {"kind", p.is_tensor ? "tensor" : "scalar"}, {"dtype", p.dtype}};
      if (p.is_tensor) {
        j["shape"] = p.shape;
        j["strides"] = p.strides;
        j["output"] = p.output;
      } else if (p.default_num_sms) {
        j["default"] = "num_sms()";
      }
      params.push_back(j);
    }
    nlohmann::json kernel = {
        {"name", k.name},  {"launcher", k.launcher},         {"block", k.block},
        {"grid", k.grid},  {"shared_bytes", k.shared_bytes}, {"assumes", k.assumes},
        {"params", params}};
    if (k.dynamic_shared_bytes > 0)
      kernel["dynamic_shared_bytes"] = k.dynamic_shared_bytes;
    kernels.push_back(kernel);
  }
  return {{"format", 1},
          {"source", input.source_path},
          {"source_sha256", sha256_hex(input.source_text)},
          {"target", std::string(target_name(target))},
          {"argus_version", input.argus_version},
          {"kernels", kernels}};
}

nlohmann::json bench_json(const LowerResult &lowered) {
  nlohmann::json benches = nlohmann::json::array();
  for (const KernelMeta &k : lowered.kernels) {
    for (const BenchMeta &b : k.benches) {
      nlohmann::json sizes = nlohmann::json::object();
      for (const auto &[name, value] : b.sizes)
        sizes[name] = value;
      nlohmann::json j = {{"kernel", k.name}, {"sizes", sizes}};
      j["reference"] = b.reference.empty() ? nlohmann::json() : nlohmann::json(b.reference);
      j["before"] = b.before;
      j["flops"] = b.flops_value ? nlohmann::json(*b.flops_value) : nlohmann::json();
      j["bytes"] = b.bytes_value ? nlohmann::json(*b.bytes_value) : nlohmann::json();
      if (b.flops)
        j["flops_expr"] = *b.flops;
      if (b.bytes)
        j["bytes_expr"] = *b.bytes;
      benches.push_back(j);
    }
  }
  return {{"benches", benches}};
}

std::string safe_stem(std::string_view source_path) {
  const std::string stem = std::filesystem::path(std::string(source_path)).stem().string();
  std::string out;
  for (char c : stem)
    out +=
        std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '_' || c == '-' ? c : '_';
  if (out.empty())
    return "kernels";
  if (out != stem || out[0] == '-' || out[0] == '.')
    return (out[0] == '-' || out[0] == '.' ? "_" : "") + out + "-" +
           sha256_hex(source_path).substr(0, 8);
  return out;
}

std::string default_artifact_dir(std::string_view source_path, GpuTarget target) {
  return safe_stem(source_path) + "." + std::string(target_name(target));
}

bool may_write_artifact(const std::string &dir, std::string &error) {
  std::error_code ec;
  const auto status = std::filesystem::symlink_status(dir, ec);
  if (ec || status.type() == std::filesystem::file_type::not_found)
    return true;
  if (status.type() != std::filesystem::file_type::directory) {
    error = dir + " exists and is not a directory; choose another output directory";
    return false;
  }
  if (std::filesystem::is_empty(dir, ec))
    return true;
  std::ifstream meta(std::filesystem::path(dir) / "meta.json");
  const auto j = nlohmann::json::parse(meta, nullptr, false);
  if (j.is_object() && j.contains("format") && j.contains("argus_version") && j.contains("kernels"))
    return true;
  error = dir + " is not empty and holds no Argus artifact (no meta.json of argus); choose an "
                "empty or new output directory";
  return false;
}

bool write_file(const std::string &path, std::string_view contents, std::string &error) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) {
    error = "cannot write " + path;
    return false;
  }
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  out.close();
  if (!out) {
    error = "cannot write " + path;
    return false;
  }
  return true;
}

bool write_artifact(const std::string &dir, const LowerResult &lowered, GpuTarget target,
                    const ArtifactInput &input, std::string &error) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    error = "cannot create " + dir + ": " + ec.message();
    return false;
  }
  const std::filesystem::path base(dir);
  // Files of an earlier compile that this one may not replace.
  for (const char *stale : {"compile.json", "kernels.cubin", "kernels.hsaco"})
    std::filesystem::remove(base / stale, ec);
  return write_file((base / std::string(source_file_name(target))).string(), lowered.source,
                    error) &&
         write_file((base / "meta.json").string(),
                    meta_json(lowered, target, input)
                            .dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
                        "\n",
                    error) &&
         write_file(
             (base / "bench.json").string(),
             bench_json(lowered).dump(2, ' ', false, nlohmann::json::error_handler_t::replace) +
                 "\n",
             error) &&
         write_file((base / "artifact_abi.h").string(), input.abi_header_text, error);
}

} // namespace argus::codegen
