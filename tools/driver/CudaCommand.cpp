//===--- CudaCommand.cpp - .cu entries of compile_commands.json -----------===//

#include "CudaCommand.h"

#include "llvm/ADT/SmallString.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

namespace torchtidy::driver {

namespace {

/// nvcc options whose value is the next argument (when not given with `=`).
bool nvccTakesValue(llvm::StringRef A) {
  static const char *const WithValue[] = {"-o",
                                          "-x",
                                          "-ccbin",
                                          "--compiler-bindir",
                                          "-Xcompiler",
                                          "--compiler-options",
                                          "-Xlinker",
                                          "--linker-options",
                                          "-Xptxas",
                                          "--ptxas-options",
                                          "-Xcudafe",
                                          "-Xnvlink",
                                          "-gencode",
                                          "--generate-code",
                                          "-arch",
                                          "--gpu-architecture",
                                          "-code",
                                          "--gpu-code",
                                          "-maxrregcount",
                                          "--maxrregcount",
                                          "--default-stream",
                                          "-default-stream",
                                          "-MF",
                                          "-MT",
                                          "-MQ",
                                          "--threads",
                                          "-t",
                                          "-rdc",
                                          "--relocatable-device-code",
                                          "-std",
                                          "--std",
                                          "-I",
                                          "-isystem",
                                          "-include",
                                          "--include-path",
                                          "--system-include",
                                          "--pre-include",
                                          "-D",
                                          "--define-macro",
                                          "-U",
                                          "--undefine-macro",
                                          "-L",
                                          "-l",
                                          "--output-file",
                                          "-odir",
                                          "--output-directory",
                                          "--diag-suppress",
                                          "-diag-suppress",
                                          "--options-file",
                                          "-optf"};
  for (const char *W : WithValue)
    if (A == W)
      return true;
  return false;
}

bool isCudaSource(llvm::StringRef File) {
  return File.ends_with(".cu") || File.ends_with(".cuh");
}

} // namespace

bool isNvccCommand(llvm::ArrayRef<std::string> CommandLine) {
  if (CommandLine.empty())
    return false;
  const llvm::StringRef Name = llvm::sys::path::filename(CommandLine.front());
  return Name == "nvcc" || Name.starts_with("nvcc-") || Name == "nvcc.exe";
}

std::vector<std::string> nvccToClang(llvm::ArrayRef<std::string> Nvcc,
                                     const CudaParseOptions &O) {
  std::vector<std::string> Out{"clang++"};
  std::vector<std::string> Kept;
  std::vector<std::string> Inputs;
  bool HasStd = false;
  for (size_t I = 1; I < Nvcc.size(); ++I) {
    const llvm::StringRef A = Nvcc[I];
    // -I<dir>, -D<macro>[=<value>], -U<macro> written in one argument.
    if (A.size() > 2 && !A.starts_with("--") &&
        (A.starts_with("-I") || A.starts_with("-D") || A.starts_with("-U"))) {
      Kept.push_back(A.str());
      continue;
    }
    llvm::StringRef Name = A, Value;
    bool Joined = false;
    if (A.starts_with("-") && A.contains('=')) {
      std::tie(Name, Value) = A.split('=');
      Joined = true;
    }
    if (!Name.starts_with("-")) {
      Inputs.push_back(A.str());
      continue;
    }
    if (!Joined && nvccTakesValue(Name) && I + 1 < Nvcc.size())
      Value = Nvcc[++I];
    if (Name == "-I" || Name == "--include-path")
      Kept.insert(Kept.end(), {"-I", Value.str()});
    else if (Name == "-isystem" || Name == "--system-include")
      Kept.insert(Kept.end(), {"-isystem", Value.str()});
    else if (Name == "-include" || Name == "--pre-include")
      Kept.insert(Kept.end(), {"-include", Value.str()});
    else if (Name == "-D" || Name == "--define-macro")
      Kept.push_back("-D" + Value.str());
    else if (Name == "-U" || Name == "--undefine-macro")
      Kept.push_back("-U" + Value.str());
    else if (Name == "-std" || Name == "--std") {
      Kept.push_back("-std=" + Value.str());
      HasStd = true;
    } else if (Name == "-Xcompiler" || Name == "--compiler-options") {
      // Host compiler flags: only the ones that name sources count.
      llvm::SmallVector<llvm::StringRef, 8> Parts;
      Value.split(Parts, ',', -1, false);
      for (const llvm::StringRef P : Parts)
        if (P.starts_with("-D") || P.starts_with("-U") || P.starts_with("-I") ||
            P.starts_with("-std="))
          Kept.push_back(P.str());
    }
    // Everything else (-gencode, -arch, --expt-*, -O, -g, -c, -o, -M*...)
    // steers code generation, not the parse.
  }
  Out.insert(Out.end(), {"-x", "cuda", "--cuda-path=" + O.CudaPath,
                         "--no-cuda-version-check", "-Wno-unknown-cuda-version",
                         "-nocudalib", "--cuda-gpu-arch=" + O.GpuArch,
                         "--cuda-host-only"});
  if (!O.CompatInclude.empty())
    Out.insert(Out.end(), {"-isystem", O.CompatInclude});
  llvm::SmallString<128> Cccl(O.CudaPath);
  llvm::sys::path::append(Cccl, "include", "cccl");
  Out.insert(Out.end(), {"-isystem", std::string(Cccl)});
  // What torch.utils.cpp_extension passes to nvcc (lib/cuda-compat/README).
  for (const char *D :
       {"-D__CUDA_NO_HALF_OPERATORS__", "-D__CUDA_NO_HALF_CONVERSIONS__",
        "-D__CUDA_NO_BFLOAT16_CONVERSIONS__", "-D__CUDA_NO_HALF2_OPERATORS__"})
    Out.emplace_back(D);
  if (!HasStd)
    Out.emplace_back("-std=c++17");
  Out.insert(Out.end(), Kept.begin(), Kept.end());
  Out.emplace_back("-c");
  Out.insert(Out.end(), Inputs.begin(), Inputs.end());
  return Out;
}

clang::tooling::ArgumentsAdjuster
cudaArgumentsAdjuster(const CudaParseOptions &Options) {
  return [Options](const clang::tooling::CommandLineArguments &Args,
                   llvm::StringRef File) {
    if (isNvccCommand(Args))
      return nvccToClang(Args, Options);
    if (!isCudaSource(File))
      return Args;
    for (const std::string &A : Args)
      if (A == "--cuda-host-only" || A == "--cuda-device-only" ||
          A == "--offload-host-only" || A == "--offload-device-only")
        return Args;
    clang::tooling::CommandLineArguments Out(Args);
    Out.insert(Out.begin() + (Out.empty() ? 0 : 1), "--cuda-host-only");
    return Out;
  };
}

std::string findCudaCompatInclude(llvm::StringRef Argv0) {
  const std::string Exe = llvm::sys::fs::getMainExecutable(
      Argv0.str().c_str(), reinterpret_cast<void *>(&findCudaCompatInclude));
  if (!Exe.empty()) {
    llvm::SmallString<256> Installed(
        llvm::sys::path::parent_path(llvm::sys::path::parent_path(Exe)));
    llvm::sys::path::append(Installed, "share", "torch-tidy", "cuda-compat",
                            "include");
    if (llvm::sys::fs::is_directory(Installed))
      return std::string(Installed);
  }
#ifdef TORCHTIDY_SOURCE_CUDA_COMPAT
  if (llvm::sys::fs::is_directory(TORCHTIDY_SOURCE_CUDA_COMPAT))
    return TORCHTIDY_SOURCE_CUDA_COMPAT;
#endif
  return "";
}

} // namespace torchtidy::driver
