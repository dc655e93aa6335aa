#include "cluster/k8s_image.h"

#include "core/companion_programs.h"
#include "core/scratch_dir.h"
#include "runtimes/image_builder.h"

namespace fs = std::filesystem;

namespace dlcbench {

std::string write_k8s_image(const fs::path& exe, const fs::path& file) {
  const ImageContent content = worker_image_content(worker_program_beside(exe), {{exe, false, kImageBinaryPath}});
  ScratchDir scratch("dlcbench-k8s-image");
  write_rootfs_tar(content, fs::absolute(file), scratch.path());
  return content.content_id;
}

}  // namespace dlcbench
