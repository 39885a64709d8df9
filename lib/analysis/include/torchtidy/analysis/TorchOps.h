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
#include <string>
#include <vector>

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
  Thrust = 1U << 9,     ///< free function of namespace thrust
  /// any function of the name (never a callee's formOf: callFacts adds the
  /// rows of this form to every call's)
  AnyScope = 1U << 10,
};

/// What follows a TORCHTIDY_OP_FAMILY row's prefix.
enum class FamilyNext : unsigned {
  AnyChar, ///< at least one more character
  Upper,   ///< an upper-case letter (cuMemAlloc, not cublas)
};

/// The domains an op's facts fall in. Each is a set of its own (one 32-bit
/// word of a FactSet): a new fact takes a free bit of its domain, and a
/// domain that fills up gets a second word, not the whole set a wider mask.
enum class Domain : unsigned {
  Making,  ///< making tensors: factories, shapes, the values they hold
  Indices, ///< index values and ranges, sizes
  Devices, ///< devices and options, CUDA queries
  Memory,  ///< storage, views, raw memory
  Modules, ///< registration of torch::nn::Module members
  Library, ///< the standard library and containers
  Inputs,  ///< data from outside the program
  Kernels, ///< custom CUDA kernels and streams
};
constexpr unsigned NumDomains = 8;
constexpr unsigned BitsPerDomain = 32;

/// Declared, never defined: a fact past its domain's word calls it, which
/// no constant expression may, so such an enumerator does not compile.
unsigned factBitPastItsDomain();

/// Fact \p Bit of domain \p D.
constexpr unsigned factCode(Domain D, unsigned Bit) {
  return Bit < BitsPerDomain ? (static_cast<unsigned>(D) * BitsPerDomain) + Bit
                             : factBitPastItsDomain();
}

/// What an op does, as far as the analyses care. One op has several (a
/// FactSet, made with `|`).
enum Fact : unsigned {
  // Making tensors (Domain::Making).
  /// makes a tensor on its options' device (CPU)
  Factory = factCode(Domain::Making, 0),
  /// makes one like its input (device from options)
  LikeFactory = factCode(Domain::Making, 1),
  /// torch::tensor({...}): the values are written
  LiteralTensor = factCode(Domain::Making, 2),
  /// cat/stack: the values of its parts
  Concatenates = factCode(Domain::Making, 3),
  /// from_blob: wraps memory it does not own
  WrapsMemory = factCode(Domain::Making, 4),
  /// always gives a 0-dim tensor
  ZeroDimResult = factCode(Domain::Making, 5),
  /// a 0-dim input gives a 0-dim result
  KeepsShape = factCode(Domain::Making, 6),
  /// without a dim: a 0-dim result
  FullReduction = factCode(Domain::Making, 7),
  /// full / full_like / fill_ / masked_fill: a value
  FillsValue = factCode(Domain::Making, 8),
  /// slice / narrow / chunk / split: a sub-range
  Slices = factCode(Domain::Making, 9),
  /// same shape as its tensor input
  ElementWise = factCode(Domain::Making, 10),
  /// transpose / permute / expand: a strided view
  StridedView = factCode(Domain::Making, 11),
  /// set_default_dtype: not float any more
  SetsDefaultDtype = factCode(Domain::Making, 12),
  // Index values and sizes (Domain::Indices).
  /// its indices are in range of what it indexes
  IndexProducer = factCode(Domain::Indices, 0),
  /// the result holds the input's values
  ValuePreserving = factCode(Domain::Indices, 1),
  /// clamp(lo, hi): bounded when both are given
  BoundsClamp = factCode(Domain::Indices, 2),
  /// remainder/fmod: bounded by the divisor
  BoundsModulo = factCode(Domain::Indices, 3),
  /// max/min/lt...: tests a range in a condition
  RangeTest = factCode(Domain::Indices, 4),
  /// x.size(d), torch::size(x, d)
  SizeOfDim = factCode(Domain::Indices, 5),
  /// x.sizes(): one size per dim
  SizesList = factCode(Domain::Indices, 6),
  /// arange(end) / arange(start, end[, step])
  IntervalArange = factCode(Domain::Indices, 7),
  /// randint(high, ...) / randint(low, high, ...)
  IntervalRandint = factCode(Domain::Indices, 8),
  /// randperm(n): a permutation of [0, n)
  IntervalRandperm = factCode(Domain::Indices, 9),
  /// searchsorted / bucketize: indices in [0, N], N the boundaries' size
  /// (one past the last boundary is a value), not a plain index producer.
  Bucketizes = factCode(Domain::Indices, 10),
  /// ceil / floor: an integer from a floating value (the value itself when
  /// it is one); how a grid is sized in `ceil((double)n / 256)`.
  RoundsToInteger = factCode(Domain::Indices, 11),
  // Devices (Domain::Devices).
  /// x.cuda()
  MovesToCuda = factCode(Domain::Devices, 0),
  /// x.cpu()
  MovesToCpu = factCode(Domain::Devices, 1),
  /// x.to(device | options | tensor | dtype)
  MovesToArgument = factCode(Domain::Devices, 2),
  /// its result's device is not known
  DeviceOpaque = factCode(Domain::Devices, 3),
  /// x.device()
  DeviceOfTensor = factCode(Domain::Devices, 4),
  /// x.options()
  OptionsOfTensor = factCode(Domain::Devices, 5),
  /// options.device(d), torch::device(d)
  OptionsDevice = factCode(Domain::Devices, 6),
  /// dtype, layout...: keeps the device
  OptionsNonDevice = factCode(Domain::Devices, 7),
  /// asks about CUDA without work on it
  CudaQuery = factCode(Domain::Devices, 8),
  /// torch::cuda::is_available()
  CudaAvailability = factCode(Domain::Devices, 9),
  /// is_cuda() of a tensor or a device
  TestsCuda = factCode(Domain::Devices, 10),
  /// Its tensor operands must be on one device (a 0-dim CPU tensor aside):
  /// add, mul, matmul, cat, where... Operators (`a + b`) are recognised by
  /// their operator kind, not by this table.
  SameDevice = factCode(Domain::Devices, 11),
  // Memory (Domain::Memory).
  /// the result may have storage of its own
  Allocates = factCode(Domain::Memory, 0),
  /// the result shares the input's storage
  View = factCode(Domain::Memory, 1),
  /// writes its input and returns it
  InPlace = factCode(Domain::Memory, 2),
  /// x.set_(y): x takes another storage
  RebindsStorage = factCode(Domain::Memory, 3),
  /// data_ptr / accessor: a pointer into storage
  RawData = factCode(Domain::Memory, 4),
  /// allocates only when it must: may be its input
  MayReturnSelf = factCode(Domain::Memory, 5),
  /// free(p): p's memory is gone
  FreesMemory = factCode(Domain::Memory, 6),
  /// v.data() / s.c_str(): a container's elements
  ContainerData = factCode(Domain::Memory, 7),
  /// data_ptr / packed_accessor32: raw storage
  RawDataPointer = factCode(Domain::Memory, 8),
  /// is_contiguous() tests it, contiguous() makes it
  Contiguity = factCode(Domain::Memory, 9),
  // Modules (Domain::Modules).
  RegistersBuffer = factCode(Domain::Modules, 0),
  RegistersParameter = factCode(Domain::Modules, 1),
  RegistersModule = factCode(Domain::Modules, 2),
  // The standard library and containers (Domain::Library).
  /// an element: at, back, get, value...
  ContainerAccess = factCode(Domain::Library, 0),
  /// stores into it: push_back, insert...
  ContainerInsert = factCode(Domain::Library, 1),
  /// std::make_shared<T>(...): a new object
  MakesShared = factCode(Domain::Library, 2),
  /// std::move / std::forward: the same value
  PassesThrough = factCode(Domain::Library, 3),
  /// std::get<I>(tuple)
  TupleElement = factCode(Domain::Library, 4),
  /// std::min(a, b)
  StdMin = factCode(Domain::Library, 5),
  /// std::max(a, b)
  StdMax = factCode(Domain::Library, 6),
  /// std::max_element, all_of, count_if, min, max...: compares the values
  /// it is given or a range's
  ComparesValues = factCode(Domain::Library, 7),
  // Data from outside the program (Domain::Inputs).
  /// std::stoi / atoi / strtol...: text to a number
  ParsesInteger = factCode(Domain::Inputs, 0),
  /// istream::read / fread: bytes into a buffer
  ReadsBytes = factCode(Domain::Inputs, 1),
  /// torch::load / pickle_load: a tensor from a file
  LoadsTensor = factCode(Domain::Inputs, 2),
  /// item / item<T>: a tensor's value on the host
  ExtractsValue = factCode(Domain::Inputs, 3),
  // Custom CUDA kernels (Domain::Kernels; libtorch-unchecked-kernel-launch).
  /// cudaGetLastError: a failed launch's error
  ReadsLaunchError = factCode(Domain::Kernels, 0),
  /// The program runs work on a stream other than the default one: it
  /// creates one (cudaStreamCreate..., getStreamFromPool), wraps one
  /// (getStreamFromExternal) or makes one current (setCurrentCUDAStream, the
  /// stream guards) (libtorch-unchecked-kernel-launch's evidence that the
  /// default stream races).
  OtherStream = factCode(Domain::Kernels, 1),
  /// min, max, fminf, clamp... in any scope: its value lies within what its
  /// other arguments allow
  BoundsByArguments = factCode(Domain::Kernels, 2),
  /// min(a, b) in any scope: the smaller of its arguments
  TakesMinimum = factCode(Domain::Kernels, 3),
  /// __ldg and its cache-hinted twins: a load from the address given
  ReadsAddress = factCode(Domain::Kernels, 4),
  /// thrust::sort, sort_by_key...: permutes the ranges it is given
  PermutesRange = factCode(Domain::Kernels, 5),
  /// thrust::copy(first, last, out)
  CopiesRange = factCode(Domain::Kernels, 6),
  /// thrust::sequence(first, last): 0, 1, 2...
  FillsSequence = factCode(Domain::Kernels, 7),
  /// thrust::make_counting_iterator(start)
  CountsUp = factCode(Domain::Kernels, 8),
  /// a function of the CUDA runtime or driver (cudaMemcpy, cuMemAlloc)
  CudaRuntimeCall = factCode(Domain::Kernels, 9),
  /// at::cuda::getCurrentCUDAStream(): the stream the caller made current
  /// (what a fix-it passes a launch)
  CurrentStream = factCode(Domain::Kernels, 10),
};

/// A set of facts, one word per domain: what `op::A | op::B` makes and what
/// callFacts returns. `Facts & op::X` tests for X.
class FactSet {
public:
  constexpr FactSet() = default;
  // NOLINTNEXTLINE(google-explicit-constructor): a fact is a set of one.
  constexpr FactSet(Fact F) {
    Words[F / BitsPerDomain] = 1U << (F % BitsPerDomain);
  }

  constexpr FactSet &operator|=(FactSet O) {
    for (unsigned I = 0; I < NumDomains; ++I)
      Words[I] |= O.Words[I];
    return *this;
  }
  constexpr FactSet &operator&=(FactSet O) {
    for (unsigned I = 0; I < NumDomains; ++I)
      Words[I] &= O.Words[I];
    return *this;
  }
  friend constexpr FactSet operator|(FactSet A, FactSet B) { return A |= B; }
  friend constexpr FactSet operator&(FactSet A, FactSet B) { return A &= B; }
  friend constexpr bool operator==(FactSet A, FactSet B) {
    for (unsigned I = 0; I < NumDomains; ++I)
      if (A.Words[I] != B.Words[I])
        return false;
    return true;
  }
  friend constexpr bool operator!=(FactSet A, FactSet B) { return !(A == B); }

  /// Some fact is in the set.
  constexpr bool any() const {
    for (const uint32_t W : Words)
      if (W)
        return true;
    return false;
  }
  constexpr explicit operator bool() const { return any(); }

  /// The facts of domain \p D, as its word.
  constexpr uint32_t word(Domain D) const {
    return Words[static_cast<unsigned>(D)];
  }

  /// Every fact of every domain (a mask that keeps anything).
  static constexpr FactSet all() {
    FactSet S;
    for (uint32_t &W : S.Words)
      W = ~0U;
    return S;
  }

private:
  uint32_t Words[NumDomains] = {};
};

constexpr FactSet operator|(Fact A, Fact B) { return FactSet(A) | FactSet(B); }

/// No fact: an op the table names for its name alone.
inline constexpr FactSet NoFact{};

/// Registration calls of torch::nn::Module.
constexpr FactSet Registers =
    RegistersBuffer | RegistersParameter | RegistersModule;

/// What a module of torch::nn is.
enum ModuleFact : unsigned {
  NoModuleFact = 0,
  Stateless = 1U << 0,        ///< no parameters, buffers or train/eval mode
  EmbeddingSink = 1U << 1,    ///< forward(ids) reads weight at ids
  EmbeddingBagSink = 1U << 2, ///< likewise, summed over bags
};

/// What a macro of the table (TORCHTIDY_MACRO) is.
enum MacroFact : unsigned {
  NoMacroFact = 0,
  /// checks the last kernel launch's error: counts as the check after one
  ChecksLaunch = 1U << 0,
  /// the launch check a fix-it writes after an unchecked launch
  WrittenAfterLaunch = 1U << 1,
  /// the runtime shim's check of a kernel's tensor argument
  ChecksKernelArgument = 1U << 2,
  /// the runtime shim's check of an index against its table
  ChecksIndex = 1U << 3,
  /// an assertion: the identifiers of its arguments count as compared
  AssertsCondition = 1U << 4,
  /// registers ops (an op library, an extension module)
  RegistersOps = 1U << 5,
  /// names a PyTorch extension (defined by its build)
  NamesExtension = 1U << 6,
  /// the assertion a fix-it writes before a kernel's unchecked index load
  WrittenInKernel = 1U << 7,
};

/// The ops an analysis reads by name (TORCHTIDY_NAMED_OP rows), in the
/// table's order: `op::Named::where`, tested with hasOpName.
enum class Named : unsigned {
#define TORCHTIDY_NAMED_OP(Name, Forms) Name,
#include "torchtidy/analysis/TorchOps.def"
};

/// The parameters an analysis reads by name (TORCHTIDY_PARAM rows), in the
/// table's order: `op::Param::dim`, tested with hasParamName.
enum class Param : unsigned {
#define TORCHTIDY_PARAM(Name) Name,
#include "torchtidy/analysis/TorchOps.def"
};

} // namespace op

/// Whose headers declare a TORCHTIDY_CLASS row's class (which headers the
/// table test reads to check it).
enum class ClassOrigin : unsigned { Torch, TorchCuda, Std, Cuda, Thrust };

/// Whose headers define a TORCHTIDY_MACRO row's macro (which headers the
/// table test includes to check it); Build: none, the build defines it.
enum class MacroOrigin : unsigned {
  Torch,
  TorchCuda,
  Std,
  Shim,
  Pybind,
  Build
};

/// The classes and enums the analyses test types against by name
/// (TORCHTIDY_CLASS rows), in the table's order: `KnownClass::Tensor`,
/// tested with isClass (TorchTypes.h).
enum class KnownClass : unsigned {
#define TORCHTIDY_CLASS(Name, Scope, Origin) Name,
#include "torchtidy/analysis/TorchOps.def"
};

/// The facts of the op named \p Name in any of the forms \p Forms.
op::FactSet opFacts(llvm::StringRef Name, unsigned Forms);

/// Whether op \p Name has fact \p F in any of the forms \p Forms.
inline bool hasOpFact(llvm::StringRef Name, unsigned Forms, op::FactSet F) {
  return (opFacts(Name, Forms) & F).any();
}

/// The form of \p FD: op::Method, Aten, Functional, Options, ModuleBase,
/// AnyMember, Std, Global, Thrust, or NoForm for another free function.
op::Form formOf(const clang::FunctionDecl *FD);

/// The name of op \p N ("where" for op::Named::where).
llvm::StringRef opName(op::Named N);

/// \p D is named as op \p N is (whatever it is declared in: a caller that
/// cares tests the form or the facts too).
bool hasOpName(const clang::NamedDecl *D, op::Named N);

/// \p D is named as one of \p Ns (an op and its in-place twin: `{fmod,
/// fmod_}`).
bool hasOpName(const clang::NamedDecl *D, std::initializer_list<op::Named> Ns);

/// The facts of the table's macro named \p Name (op::NoMacroFact for a
/// macro the table does not name).
unsigned macroFacts(llvm::StringRef Name);

/// The names of the table's macros with all of \p Facts, in its order.
std::vector<std::string> macrosWith(unsigned Facts);

/// \p P is named as parameter \p N is.
bool hasParamName(const clang::ParmVarDecl *P, op::Param N);

/// The facts of what \p Call calls (NoFact for an unnamed callee): its
/// rows in the callee's form, the AnyScope rows of its name, and the
/// families (TORCHTIDY_OP_FAMILY) its name and form fall in.
op::FactSet callFacts(const clang::CallExpr *Call);

/// callFacts of a call whose callee's form (formOf) the caller has already.
op::FactSet callFacts(const clang::CallExpr *Call, op::Form CalleeForm);

/// Where a move puts its tensor (or module): `x.cuda()`, `x.cpu()`, and
/// `to`, which reads the type of its first parameter (the rows' MovesTo*
/// facts). Every analysis that follows a move asks this, each with its own
/// lattice for the operand.
struct MoveDestination {
  enum Kind {
    NotAMove,
    Cuda,       ///< x.cuda()
    Cpu,        ///< x.cpu()
    Device,     ///< to(device): Operand, a c10::Device or a device type
    Options,    ///< to(options): Operand, TensorOptions (perhaps no device)
    Like,       ///< to(other): the device (and dtype) of the tensor Operand
    SameDevice, ///< to(dtype): a conversion that keeps the device
    Unknown,    ///< a `to` of another first parameter, or no argument
  };
  Kind K = NotAMove;
  const clang::Expr *Operand = nullptr;
  /// The dtype argument given (`to(dtype)`, `to(device, dtype)`), if any.
  const clang::Expr *Dtype = nullptr;

  bool isMove() const { return K != NotAMove; }
  /// The device argument written (`x.to(device)`, `x.to(options)`), else
  /// null.
  const clang::Expr *givenDevice() const;
};

/// Where \p Call moves its object (NotAMove for a call that is not a move).
MoveDestination moveDestination(const clang::CallExpr *Call);

/// `torch::cuda::is_available()` (a CudaAvailability call) somewhere in
/// \p S, searched to limits::SearchDepth levels.
bool mentionsCudaAvailability(const clang::Stmt *S);

/// The facts of constructing \p Construct's class, when it is a class of
/// at::, c10:: or torch:: (op::Class rows); NoFact otherwise.
op::FactSet constructFacts(const clang::CXXConstructExpr *Construct);

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
  op::FactSet Facts;
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

/// One TORCHTIDY_OP_FAMILY row.
struct OpFamilyRow {
  llvm::StringRef Prefix;
  unsigned Forms;
  op::FactSet Facts;
  op::FamilyNext Next;

  /// \p Name begins with the prefix and goes on as Next says.
  bool names(llvm::StringRef Name) const;
};

/// One TORCHTIDY_PARAM row.
struct ParamRow {
  llvm::StringRef Name;
};

/// The dtypes (TORCHTIDY_DTYPE rows, TorchDtypes.def), in the table's
/// order: `DtypeName::Float`, whose row dtypeRow gives.
enum class DtypeName : unsigned {
#define TORCHTIDY_DTYPE(Name, Bytes, Kind, Real, Spelling, Pretty) Name,
#include "torchtidy/analysis/TorchDtypes.def"
};

/// One TORCHTIDY_DTYPE row (TorchDtypes.def): a dtype as memory.
struct DtypeRow {
  enum Kind : unsigned char { Bool, Integer, Floating, Complex };
  /// The c10::ScalarType enumerator: "Float", "Double", "Long"...
  llvm::StringRef Name;
  unsigned Bytes = 0;
  Kind K = Floating;
  /// The dtype of its real part (c10::toRealValueType): a complex dtype's
  /// component, the row's own for any other.
  DtypeName Real = DtypeName::Float;
  /// How a fix-it spells it: "torch::kFloat64"; "" when LibTorch has no
  /// constant of that name in torch::.
  llvm::StringRef Spelling;
  /// How a message names it: "float64", "int32", "uint8".
  llvm::StringRef Pretty;
};

/// One TORCHTIDY_CLASS row.
struct ClassRow {
  llvm::StringRef Name;
  /// `|`-separated alternatives of `::`-separated namespaces; "" the global
  /// namespace, "*" any.
  llvm::StringRef Scope;
  ClassOrigin Origin;
};

/// One TORCHTIDY_MACRO row.
struct MacroRow {
  llvm::StringRef Name;
  unsigned Facts;
  MacroOrigin Origin;
  llvm::StringRef Header; ///< "" for MacroOrigin::Build
};

/// One TORCHTIDY_DATA_HOOK row.
struct DataHookRow {
  KnownClass Class;     ///< the class template that declares it
  llvm::StringRef Base; ///< its name
  llvm::StringRef Method;
};

/// The rows of the table, in TorchOps.def's order (for the table's tests
/// and for lookups that walk them).
llvm::ArrayRef<OpRow> opRows();
llvm::ArrayRef<IndexSinkRow> indexSinkRows();
llvm::ArrayRef<ModuleRow> moduleRows();
llvm::ArrayRef<DataHookRow> dataHookRows();
llvm::ArrayRef<NamedOpRow> namedOpRows();
llvm::ArrayRef<ClassRow> classRows();
llvm::ArrayRef<DtypeRow> dtypeRows();
/// The row of dtype \p D.
const DtypeRow &dtypeRow(DtypeName D);
llvm::ArrayRef<OpFamilyRow> opFamilyRows();
llvm::ArrayRef<ParamRow> paramRows();
llvm::ArrayRef<MacroRow> macroRows();

/// The first row with all of \p Facts (the macro a fix-it writes), else
/// null.
const MacroRow *firstMacroWith(unsigned Facts);

/// The first TORCHTIDY_OP row with all of \p Facts (the function a fix-it
/// calls), else null.
const OpRow *firstOpWith(op::FactSet Facts);

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

/// \p D is declared in namespace `at`, `c10` or `torch` (any nesting: its
/// outermost namespace but inline ones), or `caffe2` too with \p OrCaffe2
/// (caffe2::TypeMeta, what a tensor's dtype() is).
bool inTorchNamespace(const clang::Decl *D, bool OrCaffe2 = false);

/// \p D is declared in LibTorch (inTorchNamespace) inside a namespace named
/// `cuda` at any depth: at::cuda, c10::cuda, torch::cuda,
/// torch::jit::fuser::cuda.
bool inTorchCudaNamespace(const clang::Decl *D);

/// \p MD is a method of `at::Tensor` (or `at::TensorBase`).
bool isTensorMethod(const clang::CXXMethodDecl *MD);

/// \p MD is an in-place method of `at::Tensor` by LibTorch's convention,
/// a name that ends with an underscore (`add_`, `clamp_`, `index_put_`):
/// it writes the tensor it is called on, whether the table has its row or
/// not.
bool isInPlaceTensorMethod(const clang::CXXMethodDecl *MD);

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
