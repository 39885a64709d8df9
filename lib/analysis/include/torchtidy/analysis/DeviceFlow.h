//===--- DeviceFlow.h - Which device each tensor lives on -------*- C++ -*-===//
//
// A forward, flow-sensitive dataflow over one function's clang::CFG that
// gives each tensor-valued local, parameter and member (and each module, and
// each torch::Device and TensorOptions variable) a device fact, and reads the
// facts of the source and the index at every index op.
//
// The lattice per value: Unknown (top) | CPU | CUDA | SameAs(t) ("whatever
// tensor t holds now") | DeviceOf(d) ("the device held by torch::Device
// variable d", chosen at run time). A join of two different facts is
// Unknown. Facts come from factories and their options, moves (.to, .cuda,
// .cpu), ops that keep their input's device, `m->to(d)` and module calls.
// Intraprocedural: a call the model does not know forgets members and
// anything it may change through a reference.
//
// Of clang's pieces it uses the CFG and ForwardDataflowWorklist (blocks in
// reverse post-order). Not used, and why:
// - the FlowSensitive framework's Environment: it models values as storage
//   locations and formulas for a SAT solver; one device fact per variable
//   joined by equality is this lattice, and a map per block is all it needs.
// - ExprMutationAnalyzer: it answers "is this variable changed anywhere?"
//   and names the first change. The transfer function models assignments
//   and module moves itself; what it needs is the other changes (through a
//   non-const reference, a pointer, a by-reference capture, a copy of a
//   module), all of them, which EscapeFinder collects in one walk.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_ANALYSIS_DEVICEFLOW_H
#define TORCHTIDY_ANALYSIS_DEVICEFLOW_H

#include "torchtidy/analysis/TorchOps.h"

#include "clang/AST/ASTContext.h"
#include "clang/AST/Decl.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/SmallVector.h"

#include <string>
#include <vector>

namespace torchtidy {

/// The device of one value at one program point.
struct DeviceFact {
  enum Kind : unsigned char {
    Unknown, ///< top: anything, or conflicting facts joined
    CPU,
    CUDA,
    SameAs,   ///< the device tensor (or module) Ref holds here
    DeviceOf, ///< the device held by torch::Device variable Ref
    NoDevice  ///< TensorOptions that say nothing about the device
  };
  /// How the fact was made at Origin, for notes.
  enum Cause : unsigned char { Created, Moved };

  Kind K = Unknown;
  Cause How = Created;
  /// DeviceOf: the CUDA-or-CPU choice of Ref calls torch::cuda::is_available.
  bool CudaWhenAvailable = false;
  /// A 0-dim tensor (a scalar): a CPU one is not an index.
  bool ZeroDim = false;
  /// SameAs: the tensor or module; DeviceOf: the torch::Device variable.
  const clang::ValueDecl *Ref = nullptr;
  /// The call or declaration that made the fact (null for Unknown).
  const clang::Stmt *Origin = nullptr;
  /// DeviceOf: where Ref got its run-time value.
  const clang::Stmt *RefOrigin = nullptr;

  static DeviceFact unknown() { return {}; }
  static DeviceFact make(Kind K, const clang::Stmt *Origin,
                         Cause How = Created) {
    DeviceFact F;
    F.K = K;
    F.Origin = Origin;
    F.How = How;
    return F;
  }
  bool isKnown() const { return K == CPU || K == CUDA || K == DeviceOf; }
  /// Same device and same evidence.
  bool operator==(const DeviceFact &O) const;
  bool operator!=(const DeviceFact &O) const { return !(*this == O); }
  /// Same device, whatever the evidence.
  bool sameDevice(const DeviceFact &O) const;
  /// "the CPU", "CUDA", "the device held by 'd'", "the device of 'x'", ...
  std::string describe() const;
};

/// The join of the lattice: equal devices stay (with the earlier evidence),
/// anything else is Unknown.
DeviceFact join(const DeviceFact &A, const DeviceFact &B);

/// What LibTorch does with this pair at this op.
enum class IndexDeviceMismatch {
  None,        ///< same device, or not certain
  Error,       ///< throws "Expected all tensors to be on the same device"
  ImplicitCopy ///< Tensor::index / operator[]: a CPU index is copied over
};

/// The facts at one index op.
struct IndexSiteFacts {
  const clang::CallExpr *Call = nullptr;
  IndexOpSite Site;
  /// The tensor read, or the module's weight for module calls.
  DeviceFact Source;
  DeviceFact Index;
  IndexDeviceMismatch Mismatch = IndexDeviceMismatch::None;
};

/// One tensor operand of an op that needs its operands on one device.
struct OperandFact {
  const clang::Expr *E = nullptr;
  DeviceFact Fact;
};

/// An op whose tensor operands must be on one device: an arithmetic or
/// comparison operator on two tensors, a call of an op with the table's
/// SameDevice fact (`a.mul(b)`, `torch::cat({a, b})`), or a module call,
/// whose parameters meet its inputs.
struct CombineSiteFacts {
  const clang::CallExpr *Call = nullptr;
  /// The module of a module call (the expression of its holder, pointer or
  /// Impl), else null; ModuleFact is its device.
  const clang::Expr *Module = nullptr;
  DeviceFact ModuleFact;
  /// The tensor operands (for a module call: its tensor arguments), with
  /// the elements of a list argument (`cat({a, b})`) each on its own.
  llvm::SmallVector<OperandFact, 3> Operands;
};

/// Whether \p Source indexed by \p Index at an op of kind \p K is certain to
/// fail (or, for Tensor::index, to copy): CPU against CUDA, or CPU against a
/// device chosen at run time. Unknown and SameAs never are. A 0-dim CPU
/// tensor is not an index.
IndexDeviceMismatch classifyIndexDevices(IndexOpSite::Kind K,
                                         const DeviceFact &Source,
                                         const DeviceFact &Index);

/// True when \p Body contains a call matchIndexOp recognises; cheap, so
/// that the CFG is built only for functions that can have a finding.
bool containsIndexOp(const clang::Stmt *Body);

/// The analysis of one function.
class DeviceFlow {
public:
  /// Visits of one CFG block before the analysis gives up on the function.
  /// The join only loses facts, so a fixed point comes within a few visits
  /// of each loop head; the cap guards against a transfer function that is
  /// not monotone on odd code (a fact that names a value being killed).
  static constexpr unsigned MaxVisitsPerBlock = 64;

  /// Analyses the body of \p FD. False (and no sites) when it cannot: no
  /// body, dependent code, no CFG, or the iteration cap was reached.
  bool analyze(const clang::FunctionDecl *FD, clang::ASTContext &Ctx);

  /// The facts at each index op reached, in CFG order.
  llvm::ArrayRef<IndexSiteFacts> sites() const { return Sites; }

  /// Also record the facts at each op whose operands must be on one device
  /// (off by default: the index checks need only the index ops).
  void setCollectCombineSites(bool On) { CollectCombines = On; }

  /// The facts at each such op reached, in source order (empty unless
  /// setCollectCombineSites(true) came before analyze()).
  llvm::ArrayRef<CombineSiteFacts> combineSites() const { return Combines; }

  /// The tensor each reached `return` gives back and its device there, in
  /// source order (collected with the combine sites): what a caller of the
  /// function receives.
  llvm::ArrayRef<OperandFact> returns() const { return Returns; }

  /// \p V, a variable of the function, holds its initialiser's value
  /// wherever it is read: nothing assigns it and it never escapes (no
  /// non-const reference, pointer or by-reference capture of it, as
  /// EscapeFinder sees them). The same walk in every frontend: clang's
  /// ExprMutationAnalyzer follows a forwarding reference (`module(x)`) into
  /// the callee's body, which torch-clangd's preamble leaves out, and there
  /// calls it a change.
  bool keepsInitializer(const clang::VarDecl *V) const;

private:
  std::vector<IndexSiteFacts> Sites;
  std::vector<CombineSiteFacts> Combines;
  std::vector<OperandFact> Returns;
  llvm::DenseSet<const clang::ValueDecl *> Escaped, Assigned;
  bool CollectCombines = false;
};

/// The device flow of \p FD with its combine sites, analysed once per
/// function and shared by every check that asks (FunctionContext's
/// analysis<T>()); null where DeviceFlow::analyze gives false.
const DeviceFlow *sharedDeviceFlow(const clang::FunctionDecl *FD,
                                   clang::ASTContext &Ctx);

} // namespace torchtidy

#endif
