//===--- TorchTypes.h - Recognise LibTorch types by declaration -*- C++ -*-===//
//
// LibTorch is recognised by canonical declarations, never by spelling:
// `torch::Tensor` is `at::Tensor`, `torch::nn::Linear` is a class derived from
// `torch::nn::ModuleHolder<LinearImpl>`, and `TORCH_MODULE(Net)` hides the
// holder of a user's `NetImpl`.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_ANALYSIS_TORCHTYPES_H
#define TORCHTIDY_ANALYSIS_TORCHTYPES_H

#include "torchtidy/analysis/TorchOps.h"
#include "clang/AST/Decl.h"
#include "clang/AST/DeclCXX.h"
#include "clang/AST/Type.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <initializer_list>
#include <optional>

namespace clang {
class ASTContext;
class SourceManager;
} // namespace clang

namespace torchtidy {

/// True when \p D is named \p Name and sits in exactly the namespaces
/// \p Namespaces (outermost first); inline namespaces and linkage
/// specifications (`extern "C++" { namespace std {...} }`) are skipped.
bool hasQualifiedName(const clang::NamedDecl *D, llvm::StringRef Name,
                      llvm::ArrayRef<llvm::StringRef> Namespaces);

/// \p D is the class (or enum) of TORCHTIDY_CLASS row \p C: named as the
/// row is, and declared in one of its scopes (TorchOps.def).
bool isClass(const clang::NamedDecl *D, KnownClass C);

/// \p D is declared in a namespace of TORCHTIDY_CLASS row \p C's scopes,
/// whatever its name (KnownClass::Module: torch::nn): how a family of
/// classes is recognised by where LibTorch declares it, its modules or its
/// data types, naming the family's known class rather than the namespace.
/// False for a row of any namespace ("*").
bool inNamespaceOf(const clang::NamedDecl *D, KnownClass C);

/// \p D is one of the classes \p Cs (`{KnownClass::map,
/// KnownClass::unordered_map}`).
bool isClass(const clang::NamedDecl *D, std::initializer_list<KnownClass> Cs);

/// What the translation unit declares as \p Name in namespace \p Scope
/// (`::`-separated, outermost first; "" the global namespace), found as
/// qualified lookup of `Scope::Name` finds it (inline namespaces' members,
/// then the namespaces using-directives nominate; through a
/// using-declaration, what it names), else null: whether a header is
/// included already.
const clang::NamedDecl *lookupQualified(clang::ASTContext &Ctx,
                                        llvm::StringRef Scope,
                                        llvm::StringRef Name);

/// The translation unit's declaration of TORCHTIDY_CLASS row \p C, looked
/// up in each of its scopes, else null (also for a row of any namespace,
/// "*").
const clang::NamedDecl *lookupClass(clang::ASTContext &Ctx, KnownClass C);

/// The user's `T::forward(ctx, args...)` that a call of
/// `torch::autograd::Function<T>::apply(args...)` (\p Callee) runs: its
/// declaration in T (a static member named forward), else null.
const clang::CXXMethodDecl *
autogradFunctionForward(const clang::FunctionDecl *Callee);

/// `torch::data::Example<Data, Target>`: a dataset's example, a batch.
bool isDataExample(clang::QualType T);
bool isDataExample(const clang::RecordDecl *RD);

/// The class \p T names, through references, qualifiers and sugar, else
/// null.
const clang::CXXRecordDecl *namedRecord(clang::QualType T);

/// `c10::Device` under any alias (`torch::Device`).
bool isDeviceClass(clang::QualType T);

/// `c10::TensorOptions` under any alias (`torch::TensorOptions`).
bool isTensorOptionsClass(clang::QualType T);

/// `at::Tensor` under any alias (`torch::Tensor`, `torch::autograd::Variable`).
bool isTensorType(clang::QualType T);

/// `torch::nn::Module` itself.
bool isModuleBaseClass(const clang::CXXRecordDecl *RD);

/// \p RD derives from `torch::nn::Module`: directly, through user bases,
/// through `torch::nn::Cloneable<T>`, or through a dependent base of a class
/// template whose template derives from it.
bool isModuleClass(const clang::CXXRecordDecl *RD);

/// The module class held by a `torch::nn::ModuleHolder<T>` (or a class derived
/// from one, such as `torch::nn::Linear` or a user `TORCH_MODULE`), else null.
const clang::CXXRecordDecl *getHolderModule(clang::QualType T);

/// The module class \p T points to when it is `std::shared_ptr<M>` with M a
/// module class, else null.
const clang::CXXRecordDecl *getSharedPtrModule(clang::QualType T);

/// A parameter- and buffer-free LibTorch module without train/eval behaviour
/// (ReLU, Flatten, MaxPool2d, ...), given its implementation class.
bool isStatelessModule(const clang::CXXRecordDecl *Impl);

/// Element type of a standard container (`std::vector`, `std::array`,
/// `std::deque`, `std::list`, the mapped type of `std::map`,
/// `std::unordered_map` and `torch::OrderedDict`), else a null type.
clang::QualType getContainerElementType(clang::QualType T);

/// The `T` of `c10::optional<T>` / `std::optional<T>`, else a null type.
clang::QualType getOptionalValueType(clang::QualType T);

/// `c10::DeviceType`, the enum of kCPU, kCUDA...
bool isDeviceTypeEnum(clang::QualType T);
/// \p T (or what a reference of it refers to) is `c10::ScalarType`, the
/// dtype enum (`torch::kFloat`, what Tensor::scalar_type() returns).
bool isScalarTypeEnum(clang::QualType T);

/// What a device literal names, for every device model of the analyses.
/// HIP is decided here, once: it counts as CUDA. ROCm builds of LibTorch run
/// their "cuda" devices on AMD GPUs, and work on a kHIP device is
/// asynchronous GPU work with CUDA's failure modes, on another device than
/// the CPU.
enum class DeviceLiteral {
  CPU,
  CUDA,
  Other,  ///< a device type of its own: "mps", "xla:1", kMeta
  Invalid ///< not a device string: c10::Device would throw
};

/// A device string as c10::Device parses it: a device type and an optional
/// `:index` ("cpu", "cuda", "cuda:1", "hip:0", "mps").
DeviceLiteral parseDeviceString(llvm::StringRef S);

/// A c10::DeviceType enumerator by name ("CPU", "CUDA", "HIP", "Meta").
DeviceLiteral deviceTypeLiteral(llvm::StringRef Enumerator);

/// The c10::DeviceType enumerator the constant \p E evaluates to, by its
/// name; nothing when \p E is not such a constant.
std::optional<DeviceLiteral> deviceTypeOf(const clang::Expr *E,
                                          const clang::ASTContext &Ctx);

/// What a data member of a module holds, as far as registration cares.
struct MemberClass {
  enum Kind { None, Tensor, Submodule } K = None;
  bool InContainer = false; ///< std::vector<Tensor>, std::vector<Linear>...
  bool IsOptional = false;  ///< c10::optional<Tensor>
  bool IsSharedPtr = false; ///< std::shared_ptr<XImpl> rather than a holder
  /// A torch::nn::Module subclass held by value (`BlockImpl block;`):
  /// register_module takes a shared_ptr or a holder, so it cannot be
  /// registered as it is.
  bool ByValue = false;
  const clang::CXXRecordDecl *Module = nullptr; ///< Submodule: its class
};

/// Classifies the type of a module's data member.
MemberClass classifyMemberType(clang::QualType T);

/// The first tensor written by the user as a macro argument inside \p S (in
/// evaluation order the macro's first argument): the index of
/// TORCHTIDY_CHECK_INDEX or the tensor of TORCHTIDY_CHECK_KERNEL_ARG,
/// whichever function its expansion calls, and also when it expands to an
/// unevaluated operand under NDEBUG.
const clang::Expr *firstTensorMacroArgument(const clang::Stmt *S,
                                            const clang::SourceManager &SM,
                                            unsigned Depth = 0);

} // namespace torchtidy

#endif
