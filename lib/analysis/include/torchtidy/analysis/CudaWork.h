//===--- CudaWork.h - Which code does work on a CUDA device -----*- C++ -*-===//
//
// "Is this expression CUDA work?" for code that LibTorch's DataLoader runs on
// its worker threads: moves to a CUDA device, factories with a CUDA device,
// at::cuda / c10::cuda calls, the CUDA runtime API, kernel launches, and
// reads of member tensors the class moved to CUDA. Plus a bounded walk down
// the calls of a function to the functions defined in the translation unit.
// Everything is recognised by declaration: `torch::kCUDA` is
// `c10::DeviceType::CUDA`, `x.to(torch::kCUDA)` is `to(TensorOptions)` on the
// real headers and `to(Device)` on others.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_ANALYSIS_CUDAWORK_H
#define TORCHTIDY_ANALYSIS_CUDAWORK_H

#include "torchtidy/analysis/ProjectSummaries.h"
#include "clang/AST/ASTContext.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Expr.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace torchtidy {

/// The LibTorch data-pipeline hook a method overrides: what the DataLoader
/// calls on its worker threads.
struct DataHook {
  /// The LibTorch class template that declares the hook ("Dataset",
  /// "BatchDataset" (also for StatefulDataset), "Transform", "BatchTransform",
  /// "TensorTransform"); empty when the method is no hook.
  llvm::StringRef Base;
  /// The hook's name: "get", "get_batch", "apply", "apply_batch",
  /// "operator()".
  llvm::StringRef Method;
  explicit operator bool() const { return !Base.empty(); }
};

/// Which hook \p MD overrides, directly or through user base classes:
/// `Dataset::get`, `BatchDataset::get_batch` (also through `Dataset` and
/// `StatefulDataset`), `Transform::apply`, `BatchTransform::apply_batch`,
/// `TensorTransform::operator()`. Found through the overridden methods, so a
/// `get` in a class that is not a dataset is no hook.
DataHook getDataHook(const clang::CXXMethodDecl *MD);

/// What a device-valued expression (a `c10::Device`, `c10::DeviceType`,
/// `TensorOptions`, `optional<Device>` or device string) is known to be.
enum class DeviceClass {
  NotADevice,   ///< a dtype, a default TensorOptions: no device at all
  Unknown,      ///< follows something else (`t.device()`, `t.options()`)
  CPU,          ///< kCPU, Device("cpu")
  CUDA,         ///< kCUDA, Device("cuda:1"), Device(kCUDA, 1), kHIP
  Configurable, ///< a Device member, parameter or variable not provably CPU
};

/// A type whose value is a device and nothing else: `c10::Device`,
/// `c10::DeviceType`, `optional<Device>`.
bool isDeviceValued(clang::QualType T);

/// A parameter type through which a device can be passed: a device-valued
/// type or `TensorOptions`.
bool carriesDevice(clang::QualType T);

/// The two sides of a plain assignment `lhs = rhs` (the builtin one or a
/// class's operator=); false, with both null, for any other statement.
bool splitAssignment(const clang::Stmt *S, const clang::Expr *&LHS,
                     const clang::Expr *&RHS);

/// Classifies \p E, looking through implicit conversions, temporaries,
/// `TensorOptions` chains, `?:` and the initialisers of local variables.
DeviceClass classifyDevice(const clang::Expr *E);

/// Whether \p C puts data on a GPU: CUDA, or a configurable device.
inline bool isGpuDevice(DeviceClass C) {
  return C == DeviceClass::CUDA || C == DeviceClass::Configurable;
}

/// One piece of CUDA work.
struct CudaOp {
  enum Kind {
    MoveToDevice,   ///< t.to(<CUDA or configurable device>)
    CudaMethod,     ///< t.cuda()
    Factory,        ///< torch::zeros(..., <CUDA options>) and friends
    CudaLibrary,    ///< at::cuda:: / c10::cuda:: / torch::cuda::synchronize
    CudaRuntime,    ///< cudaMemcpy, cudaMalloc, cuMemcpy...
    KernelLaunch,   ///< kernel<<<grid, block>>>(...)
    CudaMemberRead, ///< reading a member tensor the class moved to CUDA
  };
  Kind K;
  /// The expression doing the work.
  const clang::Expr *Site = nullptr;
  /// MoveToDevice, Factory: CUDA or Configurable.
  DeviceClass Device = DeviceClass::CUDA;
  /// The function called (all but KernelLaunch and CudaMemberRead).
  const clang::FunctionDecl *Callee = nullptr;
  /// CudaMemberRead: the member, and where the class made it a CUDA tensor.
  const clang::FieldDecl *Member = nullptr;
  const clang::Expr *MovedAt = nullptr;
  /// MoveToDevice, Factory (deviceOp): the expression that shows the
  /// device argument to be CUDA (cudaDeviceEvidence), when the argument
  /// does not by itself; and, when that is a call of a function of another
  /// translation unit, its project summary (CudaDevice says where).
  const clang::Expr *DeviceAt = nullptr;
  std::optional<FunctionSummary> DeviceExternal;
  /// MoveToDevice, Factory on a device member of an object whose
  /// construction the search saw (ObjectConstruction): the constructor's
  /// argument that the member keeps, and the member.
  const clang::Expr *ReceivedAt = nullptr;
  const clang::FieldDecl *ReceivedMember = nullptr;
};

/// The CUDA work \p E does by itself (not counting its children, and not
/// member reads, which need the class: see CudaWorkFinder), if any.
std::optional<CudaOp> classifyCudaOp(const clang::Expr *E);

/// The construction of the object whose method is searched (`Worker
/// w(torch::kCUDA, 4)` for `w.step()`): what its constructor's arguments
/// say of the device members it keeps, for that object.
///
/// With Made null, an object whose construction the search does not see
/// (the summary of a method: CudaErrorRecovery.h's memberWork): a device
/// member that no member function assigns stands for the device the
/// object's construction gives it, as if it were CUDA (ReceivedMember says
/// which, ReceivedAt stays null).
struct ObjectConstruction {
  const clang::CXXConstructExpr *Made = nullptr;
  /// The function that constructs it (where its arguments are read).
  const clang::FunctionDecl *In = nullptr;
};

/// A device member that a constructor keeps from one of its parameters.
struct KeptDevice {
  unsigned Param = 0;
  const clang::FieldDecl *Member = nullptr;
  const clang::Expr *Init = nullptr; ///< the initialiser
};

/// The device members of \p Ctor's class (a device-valued type,
/// TensorOptions, or a reference to one) that \p Ctor, a definition,
/// initialises from one of its parameters (`device_(device)`) and that no
/// member function the translation unit defines assigns: each object keeps
/// the device its construction gives.
llvm::SmallVector<KeptDevice, 2>
keptDevices(const clang::CXXConstructorDecl *Ctor);

/// The parameter of \p Ctor that the device member with USR \p Member
/// keeps: by keptDevices when the translation unit defines \p Ctor, else,
/// with \p FollowSummaries, by its project summary (SummaryFact::
/// KeptDevices, looked up, and so asked, even when \p Member is "").
std::optional<unsigned> keptDeviceParam(const clang::CXXConstructorDecl *Ctor,
                                        llvm::StringRef Member,
                                        bool FollowSummaries);

/// The expression that shows device expression \p E to be a CUDA device,
/// else null: a CUDA device (classifyDevice), a local set to one (by its
/// initialiser or an assignment in \p Within), the non-CPU side of a choice
/// with the CPU, a function of the TU that returns one. With \p External,
/// also a call of a function of another translation unit whose project
/// summary says it returns a CUDA device (SummaryFact::CudaDevice): the
/// call is returned and that summary set in \p External.
const clang::Expr *
cudaDeviceEvidence(const clang::Expr *E, const clang::FunctionDecl *Within,
                   std::optional<FunctionSummary> *External = nullptr);

/// The expression that shows a device that \p FD (a function that returns
/// a device, a device type or TensorOptions) returns to be a CUDA device on
/// some path (cudaDeviceEvidence of a returned value, through the functions
/// of the TU it returns the result of), else null. For the project's
/// summaries: functions of other translation units are not followed.
const clang::Expr *returnedCudaDevice(const clang::FunctionDecl *FD);

/// The arguments (not defaults) that \p Call passes for device-carrying
/// parameters when it is a move (`t.to(d)`: \p K is MoveToDevice) or
/// makes a tensor (`torch::zeros(size, d)`, `t.new_zeros(size, options)`:
/// Factory), the calls whose device classifyCudaOp reads; else none.
llvm::SmallVector<const clang::Expr *, 2>
deviceOperands(const clang::CallExpr *Call, CudaOp::Kind &K);

/// A move or a factory whose device argument classifyCudaOp does not know
/// (a local set to a CUDA device by an assignment, the result of a function
/// that returns one) but cudaDeviceEvidence shows to be CUDA in \p Within:
/// the op, with DeviceAt (and DeviceExternal, with \p FollowSummaries, for a
/// function of another translation unit). With \p Receiver (\p Within a
/// method of the object it constructs), also a device member of that object
/// that its constructor sets from a parameter and no member function
/// assigns, through the argument \p Receiver gives it (ReceivedAt); its
/// constructor may be in another translation unit (keptDeviceParam).
std::optional<CudaOp> deviceOp(const clang::Expr *E,
                               const clang::FunctionDecl *Within,
                               bool FollowSummaries,
                               const ObjectConstruction *Receiver = nullptr);

/// What \p Op does, as the start of a sentence or a note ("'to' moves a
/// tensor to a CUDA device").
std::string describeCudaOp(const CudaOp &Op);

/// A call on the way from a hook to CUDA work.
struct CallStep {
  const clang::Expr *Call;           ///< the call or construction
  const clang::FunctionDecl *Callee; ///< its definition
};

/// CUDA work reached from a hook.
struct CudaWorkFinding {
  CudaOp Op;
  /// Empty when Op is in the hook itself; else the calls from the hook
  /// (Chain.front().Call is in the hook) down to the function holding Op.
  llvm::SmallVector<CallStep, 4> Chain;
  /// Set when the work is in another translation unit: the project's
  /// summary (ProjectSummaries.h) of Chain.back().Callee, a function this
  /// unit declares but does not define, whose CudaWork says what and where;
  /// Op is then unset but for its Site, the call.
  std::optional<FunctionSummary> External;
};

/// A call from a function, directly or through the functions of the
/// translation unit it calls, to a user function the unit does not define.
struct ExternalCallChain {
  /// The calls from the function down to the external call, which is
  /// Chain.back() (its Callee a declaration without a body).
  llvm::SmallVector<CallStep, 4> Chain;
};

/// Finds the CUDA work a function does, directly and through the functions
/// defined in the translation unit (outside system headers) that it calls,
/// up to MaxCallDepth calls deep. Each function body is scanned once per
/// finder and cached; recursion, mutual recursion and repeated callees are
/// visited once. Lambda bodies count as part of the function that writes
/// them; a virtual call follows the method it names; calls through function
/// pointers and std::function are not followed.
class CudaWorkFinder {
public:
  /// With \p FollowSummaries, calls to functions that the translation unit
  /// declares but does not define are looked up in the project's summaries
  /// (ProjectSummaries); without, they do nothing (a summary of this unit is
  /// made from this unit alone).
  explicit CudaWorkFinder(unsigned MaxCallDepth, bool FollowSummaries = true)
      : MaxCallDepth(MaxCallDepth), FollowSummaries(FollowSummaries) {}

  /// Each piece of CUDA work in \p Root's own body, then for each call in
  /// that body that leads to CUDA work, one finding with the shortest chain,
  /// in source order within each group.
  std::vector<CudaWorkFinding> find(const clang::FunctionDecl *Root);

  /// The calls from \p Root, directly or through functions defined here
  /// (MaxCallDepth calls deep), to user functions this translation unit
  /// declares but does not define: one shortest chain per callee, breadth
  /// first.
  std::vector<ExternalCallChain> externalCalls(const clang::FunctionDecl *Root);

  /// Where the class of \p Field makes it a CUDA tensor in code that can
  /// run on a DataLoader worker thread (a method or constructor reached from
  /// a data hook of the translation unit, MaxCallDepth calls deep), else
  /// null. A member put on the GPU once by the main thread (a constructor,
  /// a `to_device()` of the training loop) is not: each call of the hook
  /// then only reads it.
  const clang::Expr *cudaWriteOf(const clang::FieldDecl *Field);

  /// The functions that can run on a worker thread: the data hooks of the
  /// translation unit and what they call, MaxCallDepth calls deep.
  const llvm::DenseSet<const clang::FunctionDecl *> &
  workerFunctions(clang::ASTContext &Ctx);

  /// Number of function bodies scanned so far (for tests of the walk's
  /// bounds).
  unsigned scannedFunctions() const { return Summaries.size(); }

private:
  struct Summary {
    std::vector<CudaOp> Ops;
    std::vector<CallStep> Calls;
    /// Calls to user functions declared but not defined here (Callee is a
    /// declaration).
    std::vector<CallStep> External;
  };
  const Summary &summarize(const clang::FunctionDecl *FD);
  /// The shortest chain from \p Callee (depth 1) to CUDA work.
  std::optional<CudaWorkFinding> searchFrom(const CallStep &First,
                                            const clang::FunctionDecl *Root);
  /// The first of \p S's external calls whose project summary has CUDA
  /// work.
  std::optional<CudaWorkFinding> externalWork(const Summary &S) const;

  unsigned MaxCallDepth;
  bool FollowSummaries;
  llvm::DenseMap<const clang::FunctionDecl *, std::unique_ptr<Summary>>
      Summaries;
  llvm::DenseMap<const clang::CXXRecordDecl *,
                 llvm::DenseMap<const clang::FieldDecl *, const clang::Expr *>>
      CudaFields;
  std::optional<llvm::DenseSet<const clang::FunctionDecl *>> Worker;
};

} // namespace torchtidy

#endif
