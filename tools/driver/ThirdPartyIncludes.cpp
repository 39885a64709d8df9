//===--- ThirdPartyIncludes.cpp - -I directories of libraries as system ---===//

#include "ThirdPartyIncludes.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/Support/Path.h"

#include <cstring>
#include <memory>
#include <mutex>

namespace torchtidy::driver {

namespace {

bool hasFile(llvm::vfs::FileSystem &FS, llvm::StringRef Dir,
             llvm::StringRef Relative) {
  llvm::SmallString<256> Path(Dir);
  llvm::sys::path::append(Path, Relative);
  return FS.exists(Path);
}

bool isLibTorchRoot(llvm::vfs::FileSystem &FS, llvm::StringRef Dir) {
  return hasFile(FS, Dir, "ATen/ATen.h") &&
         hasFile(FS, Dir, "c10/macros/Macros.h");
}

} // namespace

bool isThirdPartyIncludeDir(llvm::vfs::FileSystem &FS, llvm::StringRef Dir) {
  llvm::SmallString<256> Abs(Dir);
  if (FS.makeAbsolute(Abs))
    return false;
  llvm::sys::path::remove_dots(Abs, /*remove_dot_dot=*/true);
  if ((hasFile(FS, Abs, "Python.h") && hasFile(FS, Abs, "pyconfig.h")) ||
      hasFile(FS, Abs, "pybind11/pybind11.h") ||
      hasFile(FS, Abs, "cuda_runtime.h"))
    return true;
  // The LibTorch include root, or a directory below it: torch/csrc/api/include
  // is four levels down.
  llvm::StringRef At = Abs;
  for (int Up = 0; Up <= 4 && !At.empty(); ++Up) {
    if (isLibTorchRoot(FS, At))
      return true;
    const llvm::StringRef Parent = llvm::sys::path::parent_path(At);
    if (Parent == At)
      break;
    At = Parent;
  }
  return false;
}

clang::tooling::ArgumentsAdjuster
thirdPartyIncludesAdjuster(llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> FS) {
  // The same directories come in every command of a project: each is looked
  // at once (absolute paths only, as a relative one depends on the command's
  // directory).
  auto Known = std::make_shared<llvm::StringMap<bool>>();
  auto Lock = std::make_shared<std::mutex>();
  return [FS, Known, Lock](const clang::tooling::CommandLineArguments &Args,
                           llvm::StringRef) {
    auto IsThirdParty = [&](llvm::StringRef Dir) {
      if (!llvm::sys::path::is_absolute(Dir))
        return isThirdPartyIncludeDir(*FS, Dir);
      const std::lock_guard<std::mutex> Guard(*Lock);
      auto [It, New] = Known->try_emplace(Dir, false);
      if (New)
        It->second = isThirdPartyIncludeDir(*FS, Dir);
      return It->second;
    };
    clang::tooling::CommandLineArguments Out;
    Out.reserve(Args.size() + 4);
    for (size_t I = 0; I < Args.size(); ++I) {
      const llvm::StringRef A = Args[I];
      llvm::StringRef Dir;
      bool Joined = true;
      if (A == "-I" || A == "--include-directory") {
        if (I + 1 == Args.size()) {
          Out.push_back(Args[I]);
          break;
        }
        Dir = Args[I + 1];
        Joined = false;
      } else if (A.starts_with("--include-directory=")) {
        Dir = A.drop_front(std::strlen("--include-directory="));
      } else if (A.starts_with("-I")) {
        Dir = A.drop_front(2);
      }
      if (!Dir.empty() && IsThirdParty(Dir)) {
        Out.emplace_back("-isystem");
        Out.push_back(Dir.str());
      } else {
        Out.push_back(Args[I]);
        if (!Joined)
          Out.push_back(Args[I + 1]);
      }
      if (!Joined)
        ++I;
    }
    return Out;
  };
}

} // namespace torchtidy::driver
