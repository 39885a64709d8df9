//===--- KernelIndexLoads.h - Indices loaded from another array -*- C++ -*-===//
//
// In custom kernels (`__global__` and `__device__` functions) and in host
// loops over raw tensor pointers, finds the loads and stores `p[e]` (also
// `*(p + e)`, `p + e` passed to an atomic, an accessor's `a[e]`) whose offset
// `e` depends on a value loaded from another array: an index array that the
// kernel received as a pointer parameter (or a struct or accessor holding
// one), or that host code took from a tensor with data_ptr<T>() or an
// accessor. Such an access reads or writes outside its array as soon as one
// index is out of range: "an illegal memory access was encountered".
//
// The access is bounded, and not reported, when a comparison of the loaded
// value (or of a value computed from it, or of the offset) dominates it in
// the function's CFG (`if (j < 0 || j >= n) return;`, `CUDA_KERNEL_ASSERT(j
// < n)`, the condition of an enclosing `if`), when the value went through a
// min/max/clamp, when a configured assert macro names it before the access
// in an enclosing block, or when every launch of the kernel in the
// translation unit passes, for that parameter, a tensor that is bounded on
// the host before the launch (a TORCH_CHECK on its max()/min(), a clamp, an
// index producer: IndexGuardFinder::classify; an index array host code makes
// in range and only permutes: IndexArrayProof). A remainder of a value that
// cannot be negative by a bound that is not loaded, and the position `i - s`
// within a segment capped at k elements, bound like a comparison. Values
// computed from threadIdx, blockIdx, loop counters and other parameters are
// not loads and are never reported; nor are loads from arrays the kernel
// declares itself.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_ANALYSIS_KERNELINDEXLOADS_H
#define TORCHTIDY_ANALYSIS_KERNELINDEXLOADS_H

#include "torchtidy/analysis/TorchOps.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "clang/AST/Expr.h"
#include "clang/Basic/SourceLocation.h"

#include <string>
#include <vector>

namespace torchtidy {

/// One access at an offset that depends on a loaded index.
struct UncheckedIndexLoad {
  const clang::FunctionDecl *Function = nullptr;
  /// The access (`out[j * K + k]`, `atomicAdd(&count[j], 1)`'s subscript).
  const clang::Expr *Access = nullptr;
  /// The offset expression.
  const clang::Expr *Offset = nullptr;
  /// The array accessed (its expression), for the message.
  const clang::Expr *Array = nullptr;
  /// Where the index value is loaded (`idx[i]`), and the parameter (kernel)
  /// or the local pointer (host) it is loaded from.
  const clang::Expr *Load = nullptr;
  const clang::ValueDecl *Source = nullptr;
  /// The local variable the loaded value is kept in, if any (`j`).
  const clang::VarDecl *Holder = nullptr;
  /// Device code (a kernel or a __device__ function), else a host loop.
  bool Device = false;
  /// A launch of the kernel in the translation unit and the host expression
  /// it passes for Source (`index.data_ptr<int64_t>()`), when one is found.
  const clang::Expr *LaunchArgument = nullptr;
  /// The constant number of elements of Array, when it is an array the code
  /// declares (`__shared__ float s[256]`), else -1.
  int64_t ArrayExtent = -1;
  /// The statement of a block that holds the access (where a check goes).
  const clang::Stmt *Statement = nullptr;
};

struct KernelIndexConfig {
  /// Macros whose arguments count as compared where they are invoked, even
  /// where they expand to nothing (CUDA_KERNEL_ASSERT in some builds); by
  /// default the table's assertions (op::AssertsCondition).
  std::vector<std::string> AssertMacros = macrosWith(op::AssertsCondition);
  /// Also analyse host loops over data_ptr<T>() pointers and accessors.
  bool HostLoops = true;
};

/// A macro invocation of one of KernelIndexConfig::AssertMacros: where it
/// is, and the identifiers its arguments name ("#" for a number).
struct AssertMacroUse {
  clang::SourceLocation Loc;
  std::vector<std::string> Names;
};

/// The unbounded accesses of the translation unit's user functions.
std::vector<UncheckedIndexLoad>
findUncheckedIndexLoads(clang::ASTContext &Ctx, const KernelIndexConfig &Config,
                        const std::vector<AssertMacroUse> &Asserts);

} // namespace torchtidy

#endif
