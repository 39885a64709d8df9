//===--- TorchOps.h - What LibTorch ops mean --------------------*- C++ -*-===//
//
// The table of LibTorch semantics (TorchOps.def) and the recognition of
// LibTorch calls by declaration (`torch::index_select` is
// `at::index_select`, `emb(ids)` is `ModuleHolder<EmbeddingImpl>::
// operator()`), never by the spelling of the call. Every analysis and check
// asks this header what an op is; none keeps a list of names.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_ANALYSIS_TORCHOPS_H
#define TORCHTIDY_ANALYSIS_TORCHOPS_H

#include "clang/AST/Expr.h"
#include "clang/AST/ExprCXX.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include <cstdint>
#include <initializer_list>
#include <optional>

namespace torchtidy {

/// The vocabulary of TorchOps.def: forms and facts, in a namespace of their
/// own so that `op::View` or `op::Method` cannot clash with other names.
namespace op {

/// Where an op is declared (TorchOps.def says what each form means).
enum Form : unsigned {
  NoForm = 0,
  Method = 1U << 0,     ///< at::Tensor / at::TensorBase member
  Aten = 1U << 1,       ///< free function of at::, c10::, torch:: (not F::)
  Functional = 1U << 2, ///< free function of torch::nn::functional
  Options = 1U << 3,    ///< c10::TensorOptions member
  ModuleBase = 1U << 4, ///< torch::nn::Module member
  AnyMember = 1U << 5,  ///< member of any other class
  Std = 1U << 6,        ///< free function of namespace std
  Global = 1U << 7,     ///< free function of the global namespace (C)
  Class = 1U << 8,      ///< class of at::, c10::, torch::, as constructed
};

/// What an op does, as far as the analyses care. One op has several.
enum Fact : uint64_t {
  NoFact = 0,
  // Making tensors.
  Factory = 1ULL << 0,       ///< makes a tensor on its options' device (CPU)
  LikeFactory = 1ULL << 1,   ///< makes one like its input (device from options)
  LiteralTensor = 1ULL << 2, ///< torch::tensor({...}): the values are written
  Concatenates = 1ULL << 3,  ///< cat/stack: the values of its parts
  WrapsMemory = 1ULL << 4,   ///< from_blob: wraps memory it does not own
  ZeroDimResult = 1ULL << 5, ///< always gives a 0-dim tensor
  // Index values.
  IndexProducer = 1ULL << 6,   ///< its indices are in range of what it indexes
  ValuePreserving = 1ULL << 7, ///< the result holds the input's values
  BoundsClamp = 1ULL << 8,     ///< clamp(lo, hi): bounded when both are given
  BoundsModulo = 1ULL << 9,    ///< remainder/fmod: bounded by the divisor
  RangeTest = 1ULL << 10,      ///< max/min/lt...: tests a range in a condition
  // Shapes.
  KeepsShape = 1ULL << 11,    ///< a 0-dim input gives a 0-dim result
  FullReduction = 1ULL << 12, ///< without a dim: a 0-dim result
  // Devices.
  MovesToCuda = 1ULL << 13,      ///< x.cuda()
  MovesToCpu = 1ULL << 14,       ///< x.cpu()
  MovesToArgument = 1ULL << 15,  ///< x.to(device | options | tensor | dtype)
  DeviceOpaque = 1ULL << 16,     ///< its result's device is not known
  RebindsStorage = 1ULL << 17,   ///< x.set_(y): x takes another storage
  DeviceOfTensor = 1ULL << 18,   ///< x.device()
  OptionsOfTensor = 1ULL << 19,  ///< x.options()
  OptionsDevice = 1ULL << 20,    ///< options.device(d), torch::device(d)
  OptionsNonDevice = 1ULL << 21, ///< dtype, layout...: keeps the device
  CudaQuery = 1ULL << 22,        ///< asks about CUDA without work on it
  CudaAvailability = 1ULL << 23, ///< torch::cuda::is_available()
  // Memory.
  Allocates = 1ULL << 24, ///< the result may have storage of its own
  View = 1ULL << 25,      ///< the result shares the input's storage
  InPlace = 1ULL << 26,   ///< writes its input and returns it
  // Modules.
  RegistersBuffer = 1ULL << 27,
  RegistersParameter = 1ULL << 28,
  RegistersModule = 1ULL << 29,
  // Containers around members.
  ContainerAccess = 1ULL << 30, ///< an element: at, back, get, value...
  ContainerInsert = 1ULL << 31, ///< stores into it: push_back, insert...
  // The standard library.
  MakesShared = 1ULL << 32,   ///< std::make_shared<T>(...): a new object
  PassesThrough = 1ULL << 33, ///< std::move / std::forward: the same value
  TupleElement = 1ULL << 34,  ///< std::get<I>(tuple)
  StdMin = 1ULL << 35,        ///< std::min(a, b)
  StdMax = 1ULL << 36,        ///< std::max(a, b)
  // Sizes and the ranges of index values.
  SizeOfDim = 1ULL << 37,      ///< x.size(d), torch::size(x, d)
  SizesList = 1ULL << 38,      ///< x.sizes(): one size per dim
  IntervalArange = 1ULL << 39, ///< arange(end) / arange(start, end[, step])
  IntervalRandint =
      1ULL << 40, ///< randint(high, ...) / randint(low, high, ...)
  IntervalRandperm = 1ULL << 41, ///< randperm(n): a permutation of [0, n)
  FillsValue = 1ULL << 42,  ///< full / full_like / fill_ / masked_fill: a value
  Slices = 1ULL << 43,      ///< slice / narrow / chunk / split: a sub-range
  ElementWise = 1ULL << 44, ///< same shape as its tensor input
  // Data from outside the program.
  ParsesInteger =
      1ULL << 45,           ///< std::stoi / atoi / strtol...: text to a number
  ReadsBytes = 1ULL << 46,  ///< istream::read / fread: bytes into a buffer
  LoadsTensor = 1ULL << 47, ///< torch::load / pickle_load: a tensor from a file
  ExtractsValue = 1ULL << 48, ///< item / item<T>: a tensor's value on the host
  // Raw memory (bits 49-53).
  RawData = 1ULL << 49,       ///< data_ptr / accessor: a pointer into storage
  MayReturnSelf = 1ULL << 50, ///< allocates only when it must: may be its input
  FreesMemory = 1ULL << 51,   ///< free(p): p's memory is gone
  ContainerData = 1ULL << 52, ///< v.data() / s.c_str(): a container's elements
  SetsDefaultDtype = 1ULL << 53, ///< set_default_dtype: not float any more
  // Custom CUDA kernels (libtorch-unchecked-kernel-launch).
  ReadsLaunchError = 1ULL << 54, ///< cudaGetLastError: a failed launch's error
  RawDataPointer = 1ULL << 55,   ///< data_ptr / packed_accessor32: raw storage
  Contiguity = 1ULL << 56,  ///< is_contiguous() tests it, contiguous() makes it
  StridedView = 1ULL << 57, ///< transpose / permute / expand: a strided view
  TestsCuda = 1ULL << 58,   ///< is_cuda() of a tensor or a device
  // Devices, streams, and the rest (bits 59-62; 63 is the last one free).
  /// Its tensor operands must be on one device (a 0-dim CPU tensor aside):
  /// add, mul, matmul, cat, where... Operators (`a + b`) are recognised by
  /// their operator kind, not by this table.
  SameDevice = 1ULL << 59,
  /// The program runs work on a stream other than the default one: it
  /// creates one (cudaStreamCreate..., getStreamFromPool), wraps one
  /// (getStreamFromExternal) or makes one current (setCurrentCUDAStream, the
  /// stream guards) (libtorch-unchecked-kernel-launch's evidence that the
  /// default stream races).
  OtherStream = 1ULL << 60,
  /// searchsorted / bucketize: indices in [0, N], N the boundaries' size
  /// (one past the last boundary is a value), not a plain index producer.
  Bucketizes = 1ULL << 61,
  /// ceil / floor: an integer from a floating value (the value itself when
  /// it is one); how a grid is sized in `ceil((double)n / 256)`.
  RoundsToInteger = 1ULL << 62,
};

/// Registration calls of torch::nn::Module.
constexpr uint64_t Registers =
    RegistersBuffer | RegistersParameter | RegistersModule;

/// What a module of torch::nn is.
enum ModuleFact : unsigned {
  NoModuleFact = 0,
  Stateless = 1U << 0,        ///< no parameters, buffers or train/eval mode
  EmbeddingSink = 1U << 1,    ///< forward(ids) reads weight at ids
  EmbeddingBagSink = 1U << 2, ///< likewise, summed over bags
};

/// The ops an analysis reads by name (TORCHTIDY_NAMED_OP rows), in the
/// table's order: `op::Named::where`, tested with hasOpName.
enum class Named : unsigned {
#define TORCHTIDY_NAMED_OP(Name, Forms) Name,
#include "torchtidy/analysis/TorchOps.def"
};

} // namespace op

/// Whose headers declare a TORCHTIDY_CLASS row's class (which headers the
/// table test reads to check it).
enum class ClassOrigin : unsigned { Torch, TorchCuda, Std, Cuda, Thrust };

/// The classes and enums the analyses test types against by name
/// (TORCHTIDY_CLASS rows), in the table's order: `KnownClass::Tensor`,
/// tested with isClass (TorchTypes.h).
enum class KnownClass : unsigned {
#define TORCHTIDY_CLASS(Name, Scope, Origin) Name,
#include "torchtidy/analysis/TorchOps.def"
};

/// The facts of the op named \p Name in any of the forms \p Forms.
uint64_t opFacts(llvm::StringRef Name, unsigned Forms);

/// Whether op \p Name has fact \p F in any of the forms \p Forms.
inline bool hasOpFact(llvm::StringRef Name, unsigned Forms, uint64_t F) {
  return (opFacts(Name, Forms) & F) != 0;
}

/// The form of \p FD: op::Method, Aten, Functional, Options, ModuleBase,
/// AnyMember, Std, Global, or NoForm for another free function.
op::Form formOf(const clang::FunctionDecl *FD);

/// The name of op \p N ("where" for op::Named::where).
llvm::StringRef opName(op::Named N);

/// \p D is named as op \p N is (whatever it is declared in: a caller that
/// cares tests the form or the facts too).
bool hasOpName(const clang::NamedDecl *D, op::Named N);

/// \p D is named as one of \p Ns (an op and its in-place twin: `{fmod,
/// fmod_}`).
bool hasOpName(const clang::NamedDecl *D, std::initializer_list<op::Named> Ns);

/// The facts of what \p Call calls (NoFact for an unnamed callee).
uint64_t callFacts(const clang::CallExpr *Call);

/// The facts of constructing \p Construct's class, when it is a class of
/// at::, c10:: or torch:: (op::Class rows); NoFact otherwise.
uint64_t constructFacts(const clang::CXXConstructExpr *Construct);

/// Which size of the source bounds an index sink's indices.
enum class IndexBound {
  DimArg,        ///< source.size(dim), dim the BoundArg argument
  DimArgOrNumel, ///< as DimArg; numel() when the dim is not given
  Numel,         ///< source.numel()
  Rows,          ///< source.size(0)
  Classes,       ///< source.size(1), the classes of a loss
  NumEmbeddings, ///< an embedding module's num_embeddings
};

/// An op that reads a tensor at positions given by an index tensor.
struct IndexOpSite {
  enum Kind {
    IndexSelect,  ///< index_select
    Gather,       ///< gather, take_along_dim
    Scatter,      ///< scatter, scatter_, scatter_add, scatter_add_
    IndexUpdate,  ///< index_add(_), index_copy(_), index_fill(_)
    IndexPut,     ///< index_put_ (a list of indices)
    Take,         ///< take
    Embedding,    ///< torch::embedding, F::embedding, EmbeddingImpl
    EmbeddingBag, ///< torch::embedding_bag, F::embedding_bag, EmbeddingBagImpl
    LossTarget,   ///< nll_loss / cross_entropy: the class ids of the target
    AdvancedIndex ///< Tensor::index({idx}) / t[idx]: copies a CPU index over
  };
  Kind K;
  /// The op as the user calls it: "index_select", "embedding", ...
  llvm::StringRef Name;
  /// The tensor read (for embeddings: the weight, when it is an argument;
  /// for module calls: null, see Module).
  const clang::Expr *Source = nullptr;
  /// The index tensor (the target, for losses). For index_put_ and
  /// Tensor::index: the single index of a one-element list, else null.
  const clang::Expr *Index = nullptr;
  /// `emb(ids)` / `emb->forward(ids)`: the expression of the module, its
  /// holder or its Impl.
  const clang::Expr *Module = nullptr;
  /// The module's class (EmbeddingImpl, EmbeddingBagImpl) for module calls.
  const clang::CXXRecordDecl *ModuleClass = nullptr;
  /// Which size of Source bounds Index, and the argument naming the dim
  /// (null when there is none or it was not written).
  IndexBound Bound = IndexBound::Rows;
  const clang::Expr *BoundDim = nullptr;
};

/// One TORCHTIDY_INDEX_SINK row.
struct IndexSinkRow {
  llvm::StringRef Name;
  unsigned Forms;
  IndexOpSite::Kind Kind;
  unsigned SourceArg, IndexArg;
  IndexBound Bound;
  int BoundArg; ///< -1: none
  llvm::StringRef SourceParam, IndexParam;
};

/// One TORCHTIDY_OP row (or TORCHTIDY_OP_SINCE row: Since names the LibTorch
/// release that added the op, which the 1.13 headers do not have; or
/// TORCHTIDY_OP_UNTIL row: Until names the release that removed it).
struct OpRow {
  llvm::StringRef Name;
  unsigned Forms;
  uint64_t Facts;
  llvm::StringRef Since = "";
  llvm::StringRef Until = "";
};

/// One TORCHTIDY_MODULE row.
struct ModuleRow {
  llvm::StringRef Name; ///< without "Impl"
  unsigned Facts;
};

/// One TORCHTIDY_NAMED_OP row.
struct NamedOpRow {
  llvm::StringRef Name;
  unsigned Forms;
};

/// One TORCHTIDY_CLASS row.
struct ClassRow {
  llvm::StringRef Name;
  /// `|`-separated alternatives of `::`-separated namespaces; "" the global
  /// namespace, "*" any.
  llvm::StringRef Scope;
  ClassOrigin Origin;
};

/// One TORCHTIDY_DATA_HOOK row.
struct DataHookRow {
  llvm::StringRef Base, Method, Namespace;
};

/// The rows of the table, in TorchOps.def's order (for the table's tests
/// and for lookups that walk them).
llvm::ArrayRef<OpRow> opRows();
llvm::ArrayRef<IndexSinkRow> indexSinkRows();
llvm::ArrayRef<ModuleRow> moduleRows();
llvm::ArrayRef<DataHookRow> dataHookRows();
llvm::ArrayRef<NamedOpRow> namedOpRows();
llvm::ArrayRef<ClassRow> classRows();

/// The name of class \p C ("Tensor" for KnownClass::Tensor).
llvm::StringRef className(KnownClass C);

/// The sink row for op \p Name in form \p Form, else null.
const IndexSinkRow *findIndexSink(llvm::StringRef Name, op::Form Form);

/// The facts of the torch::nn module whose implementation class is \p Impl
/// (`EmbeddingImpl`), op::NoModuleFact for any other class.
unsigned moduleFacts(const clang::CXXRecordDecl *Impl);

/// The facts of the torch::nn module whose options class is \p Options
/// (`EmbeddingOptions`), op::NoModuleFact for any other class.
unsigned moduleOptionsFacts(const clang::CXXRecordDecl *Options);

/// A cheap test on the callee alone: \p FD may be an index op (a sink name,
/// a module's forward or operator(), or operator[]). matchIndexOp decides.
bool mayBeIndexOpCallee(const clang::FunctionDecl *FD);

/// \p FD is declared in namespace `at`, `c10` or `torch` (any nesting).
bool isTorchFunction(const clang::FunctionDecl *FD);

/// \p MD is a method of `at::Tensor` (or `at::TensorBase`).
bool isTensorMethod(const clang::CXXMethodDecl *MD);

/// The name of the LibTorch function or Tensor method \p Call calls, or ""
/// when it calls something else.
llvm::StringRef torchCalleeName(const clang::CallExpr *Call);

/// Recognises the method and free-function forms of the index ops, the
/// embedding functions and module calls, and the losses.
std::optional<IndexOpSite> matchIndexOp(const clang::CallExpr *Call);

/// The index ops whose index libtorch-unchecked-index judges: a call that is
/// not template-dependent, recognised by matchIndexOp, with an index, and not
/// advanced indexing (`x.index({...})`, whose parts are judged apart).
std::optional<IndexOpSite> matchIndexSink(const clang::CallExpr *Call);

/// `emb(ids)` through a holder, or `emb->forward(ids)` / `impl.forward(ids)`:
/// the module class whose forward is called, and the module expression.
const clang::CXXRecordDecl *moduleForwardCall(const clang::CallExpr *Call,
                                              const clang::Expr **ModuleExpr);

} // namespace torchtidy

#endif
