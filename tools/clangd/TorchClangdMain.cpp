//===--- TorchClangdMain.cpp - torch-clangd -------------------------------===//
//
// clangd with the libtorch clang-tidy module linked in. clangd cannot load
// clang-tidy plugins (clangd issue 1458), so this is clangd's own main from
// libclangdMain.a plus a reference to the module's anchor.
//
//===----------------------------------------------------------------------===//

#include "llvm/ADT/StringRef.h"
#include <optional>

namespace clang::tidy {
extern volatile int LibTorchModuleAnchorSource;
[[maybe_unused]] static int LibTorchModuleAnchorDestination =
    LibTorchModuleAnchorSource;
} // namespace clang::tidy

namespace clang::clangd {
// tool/ClangdMain.h is not installed; this is its declaration in LLVM 19.
int clangdMain(int argc, char *argv[]);
} // namespace clang::clangd

// clangd runs a clang-tidy check only when its generated table of measured
// checks (TidyFastChecks.inc) says it is fast, unless the user's config
// relaxes FastCheckFilter. Our checks are not in that table, so clangd would
// drop them silently. The link wraps clangd's isFastTidyCheck
// (--wrap=<mangled name>, the name read from libclangDaemon.a when
// configuring, tools/CMakeLists.txt): calls from clangd's
// objects land here, and everything but our checks is answered by clangd's
// own table. The libtorch checks match narrow patterns in user code only and
// cost little next to parsing <torch/torch.h> (bench/check_cost.py), which is
// what the table records for a fast check. The user's FastCheckFilter keeps
// its meaning for every other check, and `Remove: libtorch-*` still turns
// ours off.
std::optional<bool> clangdIsFastTidyCheck(llvm::StringRef Check) asm(
    "__real_" TORCHTIDY_IS_FAST_TIDY_CHECK_SYMBOL);
std::optional<bool> torchIsFastTidyCheck(llvm::StringRef Check) asm(
    "__wrap_" TORCHTIDY_IS_FAST_TIDY_CHECK_SYMBOL);

std::optional<bool> torchIsFastTidyCheck(llvm::StringRef Check) {
  if (Check.starts_with("libtorch-"))
    return true;
  return clangdIsFastTidyCheck(Check);
}

int main(int argc, char *argv[]) {
  return clang::clangd::clangdMain(argc, argv);
}
