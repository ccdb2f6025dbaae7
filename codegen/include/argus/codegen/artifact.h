// The artifact directory of `argus compile` (docs/artifacts.md): generated
// source, meta.json, bench.json, artifact_abi.h, and after a compile the
// device binary and compile.json.
#pragma once

#include "argus/codegen/lower.h"

#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace argus::codegen {

std::string sha256_hex(std::string_view data);

struct ArtifactInput {
  std::string source_path;     // the .argus file as given
  std::string source_text;     // its contents (for source_sha256)
  std::string argus_version;   // e.g. "0.1.0"
  std::string abi_header_text; // artifact_abi.h, written next to the source
};

nlohmann::json meta_json(const LowerResult &lowered, GpuTarget target, const ArtifactInput &input);
nlohmann::json bench_json(const LowerResult &lowered);

// `<stem>.<target>` for "path/to/stem.argus" (in the working directory).
// File names reach tools and generated text, so the stem keeps only
// [A-Za-z0-9._-]: any other character becomes '_' and a hash of the whole
// path keeps such names apart ("g_(touch_x)-1a2b3c4d.sm90").
std::string default_artifact_dir(std::string_view source_path, GpuTarget target);

// The stem rule above, for other directory names made from a file name.
std::string safe_stem(std::string_view source_path);

// Whether `dir` may receive an artifact: it does not exist, is an empty
// directory, or holds an earlier artifact (a meta.json of Argus). Anything
// else is refused with `error`, so `-o ~/src` never overwrites what is there.
bool may_write_artifact(const std::string &dir, std::string &error);

// Creates `dir` (and parents) and writes the source, meta.json, bench.json and
// artifact_abi.h. False with a message on an I/O error.
bool write_artifact(const std::string &dir, const LowerResult &lowered, GpuTarget target,
                    const ArtifactInput &input, std::string &error);

// Writes a file (binary-safe); false with a message on error.
bool write_file(const std::string &path, std::string_view contents, std::string &error);

} // namespace argus::codegen
