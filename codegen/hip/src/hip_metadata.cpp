// Kernel resources from the NT_AMDGPU_METADATA note of an AMDGPU ELF code
// object (MessagePack, code object v4/v5), and MI300X occupancy.
#include "argus/codegen/hip_compile.h"

#include <algorithm>

#include <llvm/BinaryFormat/ELF.h>
#include <llvm/BinaryFormat/MsgPackDocument.h>
#include <llvm/Object/ELFObjectFile.h>
#include <llvm/Object/ObjectFile.h>
#include <llvm/Support/Error.h>
#include <llvm/Support/MemoryBuffer.h>

namespace argus::codegen {
namespace {

// An integer entry of a metadata map; `fallback` when it is absent.
bool read_int(llvm::msgpack::MapDocNode &map, llvm::StringRef key, int64_t fallback, int64_t &value,
              std::string &error) {
  auto it = map.find(key);
  if (it == map.end()) {
    value = fallback;
    return true;
  }
  llvm::msgpack::DocNode &node = it->second;
  if (node.getKind() == llvm::msgpack::Type::Int) {
    value = node.getInt();
  } else if (node.getKind() == llvm::msgpack::Type::UInt) {
    value = static_cast<int64_t>(node.getUInt());
  } else {
    error = "metadata key " + key.str() + " is not an integer";
    return false;
  }
  return true;
}

int64_t align_up(int64_t value, int64_t alignment) {
  return (value + alignment - 1) / alignment * alignment;
}

bool parse_metadata(llvm::StringRef blob, std::vector<HipKernelResources> &kernels,
                    std::string &error) {
  llvm::msgpack::Document document;
  if (!document.readFromBlob(blob, /*Multi=*/false)) {
    error = "the AMDGPU metadata is not valid MessagePack";
    return false;
  }
  if (document.getRoot().getKind() != llvm::msgpack::Type::Map) {
    error = "the AMDGPU metadata is not a map";
    return false;
  }
  llvm::msgpack::MapDocNode &root = document.getRoot().getMap();
  auto list = root.find("amdhsa.kernels");
  if (list == root.end()) {
    return true; // a code object without kernels
  }
  if (list->second.getKind() != llvm::msgpack::Type::Array) {
    error = "amdhsa.kernels is not an array";
    return false;
  }
  for (llvm::msgpack::DocNode &entry : list->second.getArray()) {
    if (entry.getKind() != llvm::msgpack::Type::Map) {
      error = "an amdhsa.kernels entry is not a map";
      return false;
    }
    llvm::msgpack::MapDocNode &map = entry.getMap();
    HipKernelResources kernel;
    auto name = map.find(".name");
    if (name == map.end() || name->second.getKind() != llvm::msgpack::Type::String) {
      error = "a kernel has no .name";
      return false;
    }
    kernel.name = name->second.getString().str();
    int64_t vgpr = 0, agpr = 0, sgpr = 0, wave = 0, flat = 0;
    if (!read_int(map, ".vgpr_count", 0, vgpr, error) ||
        !read_int(map, ".agpr_count", 0, agpr, error) ||
        !read_int(map, ".sgpr_count", 0, sgpr, error) ||
        !read_int(map, ".group_segment_fixed_size", 0, kernel.lds_bytes, error) ||
        !read_int(map, ".private_segment_fixed_size", 0, kernel.scratch_bytes, error) ||
        !read_int(map, ".vgpr_spill_count", 0, kernel.spill_vgprs, error) ||
        !read_int(map, ".sgpr_spill_count", 0, kernel.spill_sgprs, error) ||
        !read_int(map, ".wavefront_size", gfx942::kWavefrontSize, wave, error) ||
        !read_int(map, ".max_flat_workgroup_size", 1024, flat, error)) {
      error = kernel.name + ": " + error;
      return false;
    }
    // On gfx90a/gfx942 `.vgpr_count` is the unified total: the architected
    // VGPRs aligned to 4, then the AGPRs (LLVM's getTotalNumVGPRs).
    kernel.total_vgprs = static_cast<int>(vgpr);
    kernel.agprs = static_cast<int>(agpr);
    kernel.vgprs = static_cast<int>(agpr > 0 ? std::max<int64_t>(vgpr - agpr, 0) : vgpr);
    kernel.sgprs = static_cast<int>(sgpr);
    kernel.wavefront_size = static_cast<int>(wave);
    kernel.max_flat_workgroup_size = static_cast<int>(flat);
    auto dynamic = map.find(".uses_dynamic_stack");
    kernel.dynamic_stack = dynamic != map.end() &&
                           dynamic->second.getKind() == llvm::msgpack::Type::Boolean &&
                           dynamic->second.getBool();
    compute_gfx942_occupancy(kernel);
    kernels.push_back(std::move(kernel));
  }
  return true;
}

} // namespace

bool read_amdgpu_kernel_resources(const std::vector<uint8_t> &code_object,
                                  std::vector<HipKernelResources> &kernels, std::string &error) {
  kernels.clear();
  llvm::MemoryBufferRef buffer(
      llvm::StringRef(reinterpret_cast<const char *>(code_object.data()), code_object.size()),
      "code object");
  llvm::Expected<std::unique_ptr<llvm::object::ObjectFile>> file =
      llvm::object::ObjectFile::createObjectFile(buffer);
  if (!file) {
    error = "not an object file: " + llvm::toString(file.takeError());
    return false;
  }
  auto *elf = llvm::dyn_cast<llvm::object::ELF64LEObjectFile>(file->get());
  if (elf == nullptr || elf->getELFFile().getHeader().e_machine != llvm::ELF::EM_AMDGPU) {
    error = "not a 64-bit little-endian AMDGPU ELF object";
    return false;
  }
  const llvm::object::ELF64LEFile &contents = elf->getELFFile();
  auto sections = contents.sections();
  if (!sections) {
    error = llvm::toString(sections.takeError());
    return false;
  }
  for (const auto &section : *sections) {
    if (section.sh_type != llvm::ELF::SHT_NOTE) {
      continue;
    }
    llvm::Error note_error = llvm::Error::success();
    for (const auto &note : contents.notes(section, note_error)) {
      if (note.getName() == "AMDGPU" && note.getType() == llvm::ELF::NT_AMDGPU_METADATA) {
        llvm::ArrayRef<uint8_t> desc = note.getDesc(section.sh_addralign);
        const llvm::StringRef blob(reinterpret_cast<const char *>(desc.data()), desc.size());
        llvm::consumeError(std::move(note_error));
        return parse_metadata(blob, kernels, error);
      }
    }
    if (note_error) {
      error = "malformed ELF note: " + llvm::toString(std::move(note_error));
      return false;
    }
  }
  error = "no NT_AMDGPU_METADATA note in the code object";
  return false;
}

void compute_gfx942_occupancy(HipKernelResources &kernel) {
  using namespace gfx942;
  // Registers. VGPRs and AGPRs share one 512-entry file per lane; allocation is
  // in granules of 8 of the unified count (LLVM AMDGPUBaseInfo:
  // getNumWavesPerEUWithNumVGPRs, getVGPRAllocGranule, getTotalNumVGPRs).
  int64_t unified = kernel.total_vgprs;
  if (unified == 0 && (kernel.vgprs > 0 || kernel.agprs > 0)) {
    unified = kernel.agprs > 0 ? align_up(kernel.vgprs, kAgprOffsetAlignment) + kernel.agprs
                               : kernel.vgprs;
  }
  const int64_t allocated = align_up(std::max<int64_t>(unified, 1), kVgprAllocGranule);
  kernel.occupancy_vgpr_limit =
      static_cast<int>(std::clamp<int64_t>(kVgprsPerSimdLane / allocated, 0, kMaxWavesPerSimd));

  // SGPRs: GFX9 has 800 per SIMD; LLVM's GFX8/9 table gives 8 waves up to 100
  // SGPRs and 7 above (GCNSubtarget / IsaInfo::getOccupancyWithNumSGPRs).
  kernel.occupancy_sgpr_limit = kernel.sgprs <= 100 ? kMaxWavesPerSimd : 7;

  // Work-groups per CU: at most 16 with barriers (more than one wave per group),
  // bounded by the 32 wave slots of the CU (IsaInfo::getMaxWorkGroupsPerCU).
  const int wave = kernel.wavefront_size > 0 ? kernel.wavefront_size : kWavefrontSize;
  const int64_t group = std::max(kernel.max_flat_workgroup_size, 1);
  const int64_t waves_per_group = (group + wave - 1) / wave;
  const int64_t wave_slots = int64_t{kMaxWavesPerSimd} * kSimdsPerCu;
  int64_t groups_per_cu =
      waves_per_group == 1 ? wave_slots
                           : std::min<int64_t>(wave_slots / waves_per_group, kMaxWorkgroupsPerCu);
  auto waves_per_simd = [&](int64_t groups) {
    const int64_t waves = groups * waves_per_group;
    return static_cast<int>(
        std::min<int64_t>((waves + kSimdsPerCu - 1) / kSimdsPerCu, kMaxWavesPerSimd));
  };
  kernel.occupancy_workgroup_limit = groups_per_cu > 0 ? waves_per_simd(groups_per_cu) : 0;

  // LDS: 64 KiB per CU shared by the resident work-groups
  // (AMDGPUSubtarget::getOccupancyWithLocalMemSize).
  if (kernel.lds_bytes > kLdsBytesPerCu) {
    kernel.occupancy_lds_limit = 0; // cannot launch
  } else {
    const int64_t lds_groups =
        kernel.lds_bytes > 0 ? kLdsBytesPerCu / kernel.lds_bytes : groups_per_cu;
    kernel.occupancy_lds_limit = waves_per_simd(std::min(lds_groups, groups_per_cu));
  }

  kernel.occupancy_waves_per_simd =
      std::min({kernel.occupancy_vgpr_limit, kernel.occupancy_sgpr_limit,
                kernel.occupancy_lds_limit, kernel.occupancy_workgroup_limit, kMaxWavesPerSimd});
}

} // namespace argus::codegen
