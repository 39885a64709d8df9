//===--- CudaErrorRecovery.h - Handlers that outlive a CUDA error -*- C++
//-*-===//
//
// After an illegal memory access or a device-side assert the CUDA context is
// dead: every later CUDA call fails. A `catch` that can receive such an
// error (c10::Error, c10::CUDAError, a base of them such as std::exception,
// or `...`) around CUDA work, and then carries on (no rethrow, no exit) or
// does more CUDA work (emptyCache(), a retry), turns one crash into a
// program that keeps running on a dead GPU.
//
// CUDA work is evidence, never a guess: the CudaWork analysis' operations on
// a CUDA device (not a configurable one), moves and factories on a device
// that cudaDeviceEvidence (CudaWork.h) shows to be CUDA, and calls of
// modules whose class the translation unit moves to such a device
// (`model->to(device)` with `device` CUDA, CUDA when available, the non-CPU
// side of a choice `use_gpu ? gpu_device() : torch::kCPU`, or what a
// function of another file returns by its project summary), in the try
// block or in the functions of the TU it calls, MaxCallDepth calls deep.
//
// Not reported: handlers that rethrow or throw, that end the program (a
// [[noreturn]] call such as exit/abort, a return from main), that recognise
// out-of-memory (c10::OutOfMemoryError, a message with "out of memory"),
// which is recoverable; and handlers of classes LibTorch's errors are not
// (std::runtime_error, std::invalid_argument...) unless the try block calls
// the CUDA runtime API itself, whose errors the user's code may throw as
// such.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_ANALYSIS_CUDAERRORRECOVERY_H
#define TORCHTIDY_ANALYSIS_CUDAERRORRECOVERY_H

#include "torchtidy/analysis/CudaWork.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/StmtCXX.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallVector.h"

#include <optional>
#include <vector>

namespace torchtidy {

/// What a handler catches, as far as CUDA errors go.
enum class CaughtErrors {
  None,        ///< no error LibTorch throws for CUDA (c10::IndexError...)
  OutOfMemory, ///< c10::OutOfMemoryError: recoverable
  LibTorch,    ///< c10::Error, c10::CUDAError, a base of them, or `...`
  OtherStd,    ///< std::runtime_error and the like, which c10::Error is not
};

/// Classifies handler \p H by its caught type (an earlier handler of the
/// same try that takes LibTorch's errors leaves none for \p H).
CaughtErrors classifyCatch(const clang::CXXTryStmt *Try, unsigned HandlerIndex,
                           clang::ASTContext &Ctx);

/// How a handler ends.
enum class HandlerExit {
  CarriesOn,  ///< neither rethrows nor ends the program
  Propagates, ///< a throw (or a rethrow) in the handler
  EndsProgram ///< a [[noreturn]] call (exit, abort...) or a return from main
};

/// How \p H, a handler of function \p Within, ends. Any throw or exit in
/// the handler counts, on whatever path.
HandlerExit classifyHandlerExit(const clang::CXXCatchStmt *H,
                                const clang::FunctionDecl *Within);

/// \p H tells out-of-memory apart: it names c10::OutOfMemoryError or a
/// message with "out of memory" (case-insensitive).
bool recognisesOutOfMemory(const clang::CXXCatchStmt *H);

/// One piece of evidence of CUDA work.
struct CudaEvidence {
  enum Kind {
    Op,         ///< a CudaWork operation on a CUDA device
    ModuleCall, ///< a call on (or with) a module of a class moved to CUDA
    Summary     ///< a call of a function of another translation unit whose
                ///< project summary has CUDA work (External)
  };
  Kind K = Op;
  /// Op: the operation.
  CudaOp Operation{CudaOp::CudaLibrary, nullptr};
  /// Where the work is: the operation, or the module's call.
  const clang::Expr *Site = nullptr;
  /// ModuleCall: the module's class, the `to()` that moves it to CUDA, and
  /// the expression that makes that device CUDA.
  const clang::CXXRecordDecl *Module = nullptr;
  const clang::Expr *MovedAt = nullptr;
  /// ModuleCall, and an Op (a move or a factory) whose device argument is
  /// not a CUDA device by itself (a local set to one, a function's result):
  /// the expression that makes the device CUDA (cudaDeviceEvidence).
  const clang::Expr *DeviceAt = nullptr;
  /// When DeviceAt is a call of a function of another translation unit:
  /// that function's project summary, whose CudaDevice says where.
  std::optional<FunctionSummary> DeviceExternal;
  /// The calls from the try block (or handler) down to the function of
  /// Site; empty when Site is in it. For Summary, Chain.back() is the call
  /// of the function of the other translation unit (Site).
  llvm::SmallVector<CallStep, 4> Chain;
  /// Summary: that function's project summary (ProjectSummaries.h), whose
  /// DefiniteCudaWork says what and where; or, for a method (or a
  /// constructor) of an object whose construction gives a device member a
  /// CUDA device, its MemberDeviceWork, with Operation.ReceivedAt and
  /// ReceivedMember, DeviceAt and DeviceExternal as for an Op.
  std::optional<FunctionSummary> External;
  /// Summary: the fact of External that is the work.
  const FunctionSummary::Fact *externalWork() const {
    if (!External)
      return nullptr;
    if (External->DefiniteCudaWork)
      return &*External->DefiniteCudaWork;
    return External->MemberDeviceWork ? &External->MemberDeviceWork->Work
                                      : nullptr;
  }
};

/// Finds CUDA work in statements and in the functions of the TU they call.
class CudaEvidenceFinder {
public:
  /// Collects the module classes that \p Ctx's user code moves to a CUDA
  /// device. With \p FollowSummaries, calls of functions this translation
  /// unit declares but does not define are looked up in the project's
  /// summaries (ProjectSummaries.h); a summary of the unit is made without.
  CudaEvidenceFinder(clang::ASTContext &Ctx, unsigned MaxCallDepth,
                     bool FollowSummaries = true);
  /// The first CUDA work in \p S (a try block or a handler), else none.
  /// \p Within is the function holding \p S.
  std::optional<CudaEvidence> find(const clang::Stmt *S,
                                   const clang::FunctionDecl *Within);
  /// The first CUDA work of \p FD, a method or a constructor, on the
  /// device that a device member of its object keeps (keptDevices: one
  /// that no member function assigns), in its body or through its calls on
  /// `this`: work on a CUDA device for an object constructed with one
  /// (Operation.ReceivedMember is the member). None when the first work
  /// found is on a CUDA device by itself (find sees that).
  std::optional<CudaEvidence> memberWork(const clang::CXXMethodDecl *FD);

private:
  std::optional<CudaEvidence> search(const clang::Stmt *S,
                                     const clang::FunctionDecl *Within,
                                     const ObjectConstruction *Receiver);
  /// The first call in \p Body's own statements (of \p Within, a method of
  /// the object \p Receiver constructs when known) of a function of another
  /// translation unit whose summary has CUDA work on a CUDA device, or of a
  /// method (a constructor) of another unit that works on a device member
  /// that the construction of its object gives a CUDA device.
  std::optional<CudaEvidence>
  inOtherUnits(const clang::Stmt *Body, const clang::FunctionDecl *Within,
               const ObjectConstruction *Receiver) const;
  /// \p Call's work on a device member of an object constructed with a CUDA
  /// device, by the summaries of its callee and of the constructor.
  std::optional<CudaEvidence>
  objectWork(const clang::Expr *Call, const clang::FunctionDecl *Callee,
             const clang::FunctionDecl *Within,
             const ObjectConstruction *Receiver) const;
  /// \p Within: the function whose statements are searched; \p Receiver:
  /// the construction of the object it is a method of, when known.
  std::optional<CudaEvidence> inOwnStmts(const clang::Stmt *Body,
                                         const clang::FunctionDecl *Within,
                                         const ObjectConstruction *Receiver);
  struct Move {
    const clang::Expr *MovedAt;
    const clang::Expr *DeviceAt;
    std::optional<FunctionSummary> DeviceExternal;
  };
  llvm::DenseMap<const clang::CXXRecordDecl *, Move> CudaModules;
  unsigned MaxCallDepth;
  bool FollowSummaries;
};

/// One finding.
struct CudaErrorRecoverySite {
  enum Kind {
    CarriesOn,        ///< the handler neither rethrows nor ends the program
    CudaWorkInHandler ///< the handler does CUDA work (emptyCache, a retry)
  };
  Kind K = CarriesOn;
  const clang::CXXTryStmt *Try = nullptr;
  const clang::CXXCatchStmt *Handler = nullptr;
  const clang::FunctionDecl *Function = nullptr;
  CaughtErrors Caught = CaughtErrors::LibTorch;
  /// The CUDA work in the try block.
  CudaEvidence Work;
  /// CudaWorkInHandler: the CUDA work in the handler.
  std::optional<CudaEvidence> HandlerWork;
};

/// Finds the sites of a translation unit's user code, in source order.
std::vector<CudaErrorRecoverySite> findCudaErrorRecovery(clang::ASTContext &Ctx,
                                                         unsigned MaxCallDepth);

} // namespace torchtidy

#endif
