//===--- KernelLaunches.h - Custom CUDA kernel launches ---------*- C++ -*-===//
//
// What a `kernel<<<grid, block[, shared[, stream]]>>>(args)` in a LibTorch
// extension does at run time, as far as the analyser can tell:
//
// - what runs after it: a launch check (C10_CUDA_KERNEL_LAUNCH_CHECK(),
//   cudaGetLastError() whose value is used, TORCHTIDY_CHECK_LAUNCH(), a
//   configured macro), or some other statement, which leaves a failed
//   launch's error pending for the next unrelated CUDA call. Launches that
//   follow one another count as one (the error of the first stays pending
//   through the second); the walk leaves blocks, branches, loops and the
//   lambda bodies the dispatch macros call;
// - evidence that the launch can fail: a grid dimension computed from a
//   tensor's size with nothing returning early on empty input (a grid of 0
//   blocks is an invalid configuration), or a constant block of more than
//   1024 threads;
// - its stream: none (the legacy default stream, not LibTorch's current
//   stream), a null-stream constant, or a stream;
// - the raw views of tensor storage it receives (`t.data_ptr<float>()`,
//   `t.packed_accessor32<...>()`, a pointer variable holding one), directly
//   or through a launcher function, and evidence that the tensor is not on
//   CUDA, not contiguous, or not of the pointer's dtype, unless a check
//   before the launch proves it (TORCH_CHECK(t.is_cuda()),
//   t.device().type() == kCUDA, t.is_contiguous(), a CHECK_INPUT-style macro
//   or helper, TORCHTIDY_CHECK_KERNEL_ARG, a branch on it).
//
// Guards are found on the function's CFG (IndexGuardFinder's dominance, its
// definitions and writes of locals); a launch in a lambda that a dispatch
// macro calls is also guarded by what dominates the macro in the enclosing
// function.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_ANALYSIS_KERNELLAUNCHES_H
#define TORCHTIDY_ANALYSIS_KERNELLAUNCHES_H

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/ExprCXX.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace torchtidy {

struct FunctionSummary; // ProjectSummaries.h

/// Evidence that a launch can fail to start.
struct LaunchFailure {
  enum Kind {
    None,
    EmptyGrid,     ///< a grid dimension is 0 when a tensor is empty
    ZeroGrid,      ///< a grid dimension is the constant 0
    OversizedBlock ///< a constant block of more than 1024 threads
  } K = None;
  /// EmptyGrid, ZeroGrid: the grid dimension (0 x, 1 y, 2 z).
  unsigned Dim = 0;
  /// EmptyGrid: the size read from a tensor (`x.size(0)`, `x.numel()`).
  const clang::Expr *Size = nullptr;
  /// EmptyGrid: the local variable the grid reads that holds it, if any.
  const clang::VarDecl *Via = nullptr;
  /// OversizedBlock: threads per block.
  uint64_t Threads = 0;
};

/// One launch and what the model finds there.
struct KernelLaunchSite {
  const clang::CUDAKernelCallExpr *Launch = nullptr;
  /// The function (or lambda call operator) the launch is written in.
  const clang::FunctionDecl *Function = nullptr;

  /// What runs after the launch.
  enum class After {
    Checked,   ///< a launch check
    Unchecked, ///< another statement, or the function returns
    Unknown,   ///< a lambda stored for later: not followed
  } Follow = After::Unknown;
  /// Checked: the check. Unchecked: the statement that runs next (null when
  /// the function returns right after the launch).
  const clang::Stmt *Next = nullptr;
  /// The statement of its block that holds the launch: where a check
  /// belongs (null when there is no such block).
  const clang::Stmt *Statement = nullptr;

  enum class StreamUse {
    Given,        ///< a stream expression
    Missing,      ///< no stream argument: the legacy default stream
    NullConstant, ///< 0, nullptr, cudaStreamLegacy, cudaStreamPerThread
  } Stream = StreamUse::Given;
  /// The configuration arguments written between <<< and >>> (2 to 4).
  unsigned WrittenConfigArgs = 2;

  LaunchFailure Failure;
};

/// A raw view of a tensor's storage passed to a kernel, with a property
/// that the evidence says it lacks (or, with ReportUnprovenArguments, that
/// nothing proves).
struct KernelArgIssue {
  enum Property { NotOnCuda, NotContiguous, WrongDtype } P = NotOnCuda;
  /// Evidence says the property does not hold; false: only unproven.
  bool Evidence = true;
  /// The launch, or the call of the launcher function.
  const clang::CallExpr *Sink = nullptr;
  /// The launcher called (null for a launch), and where it launches.
  const clang::FunctionDecl *Launcher = nullptr;
  const clang::Expr *LauncherLaunch = nullptr;
  /// A launcher defined in another file: its project summary, which says
  /// where it launches with parameter LauncherParam (LauncherLaunch null).
  std::shared_ptr<const FunctionSummary> LauncherSummary;
  unsigned LauncherParam = 0;
  /// The argument as written, and the call that takes the raw view
  /// (`x.data_ptr<float>()`, `x.packed_accessor32<float, 2>()`).
  const clang::Expr *Argument = nullptr;
  const clang::Expr *RawView = nullptr;
  /// The tensor the view is taken on, as written.
  const clang::Expr *Tensor = nullptr;
  /// The variable whose making is the evidence, if any.
  const clang::ValueDecl *Var = nullptr;
  /// Where the evidence is: the CPU factory, the strided view, the dtype.
  const clang::Stmt *At = nullptr;
  /// NotOnCuda: why ("is given no device", "moves it to the CPU", ...).
  /// WrongDtype: the tensor's dtype ("Long").
  std::string Detail;
  /// The element type of the pointer or accessor ("float"), "" when none.
  std::string Pointee;
  /// WrongDtype: the view is data_ptr<T>()/data<T>()/an accessor, which
  /// throws on a dtype mismatch, rather than a cast of data_ptr().
  bool TypedView = false;
  /// WrongDtype of a view typed with a dispatch macro's scalar_t: the
  /// tensor the dispatch switches on (the view is wrong whenever that
  /// tensor's dtype is not Detail).
  const clang::Expr *DispatchOn = nullptr;
};

struct KernelLaunchConfig {
  /// Macros that count as a launch check besides C10_CUDA_KERNEL_LAUNCH_CHECK
  /// and TORCHTIDY_CHECK_LAUNCH.
  std::vector<std::string> LaunchCheckMacros;
  /// Also report arguments whose properties nothing proves.
  bool ReportUnprovenArguments = false;
  /// Launcher functions followed through launcher functions.
  unsigned MaxLauncherDepth = 3;
  /// A function of another file is a launcher when the project's summaries
  /// say so (ProjectSummaries.h); off while a summary is made (of one
  /// unit alone).
  bool FollowSummaries = true;
};

/// The analysis of one translation unit.
class KernelLaunchAnalysis {
public:
  KernelLaunchAnalysis(clang::ASTContext &Ctx, KernelLaunchConfig Config);
  ~KernelLaunchAnalysis();
  KernelLaunchAnalysis(const KernelLaunchAnalysis &) = delete;
  KernelLaunchAnalysis &operator=(const KernelLaunchAnalysis &) = delete;

  /// The launches in \p FD's own body (a lambda's are its call operator's),
  /// in source order.
  std::vector<KernelLaunchSite> launches(const clang::FunctionDecl *FD);

  /// The raw storage views passed in \p FD's own body to a launch or a
  /// launcher function that lack a property.
  std::vector<KernelArgIssue> argumentIssues(const clang::FunctionDecl *FD);

  /// A call of \p Callee passes argument \p Param on to a kernel launch:
  /// \p Callee launches with it (through launchers, MaxLauncherDepth deep),
  /// or is only declared here and its project summary says so or it takes
  /// a cudaStream_t. \p LaunchOut gets the launch (null for a
  /// declaration).
  bool isLauncherParam(const clang::FunctionDecl *Callee, unsigned Param,
                       const clang::Expr **LaunchOut = nullptr);

  /// The translation unit declares at::Tensor (it uses LibTorch).
  bool usesLibTorch();

  /// The first call or construction in user code that runs work on a
  /// stream other than the default one (op::OtherStream: cudaStreamCreate,
  /// getStreamFromPool, a CUDAStreamGuard...), or null.
  const clang::Expr *firstOtherStream();

  struct Impl;

private:
  std::unique_ptr<Impl> P;
};

/// The name a kernel launch is reported with ("k", "k<float>"), or "" when
/// the callee is not a named function.
std::string kernelName(const clang::CUDAKernelCallExpr *Launch);

} // namespace torchtidy

#endif
