//===--- Peel.h - Looking through what only wraps a value -------*- C++ -*-===//
//
// One peel for every analysis: an expression is looked through, top node by
// top node, while the node is a wrapper of a kind in the peel set, down to
// the value it wraps. A set is a union of steps; each step is one kind of
// wrapper, from what the compiler adds (implicit casts, temporaries) to what
// LibTorch's table says keeps a value (std::move, x.contiguous()). Since a
// step looks only at the top node and gives its one wrapped operand, the
// result does not depend on the order the steps are tried in.
//
// The named sets below are the ones the analyses use; a new analysis picks
// one of them, or composes its own from the steps.
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_ANALYSIS_PEEL_H
#define TORCHTIDY_ANALYSIS_PEEL_H

#include "llvm/ADT/STLFunctionalExtras.h"

namespace clang {
class CXXConstructExpr;
class CallExpr;
class Expr;
class InitListExpr;
class MemberExpr;
class Stmt;
} // namespace clang

namespace torchtidy::peel {

/// One kind of wrapper.
enum Step : unsigned {
  /// `(e)`, `__extension__ e`, `_Generic`, `__builtin_choose_expr`.
  Parens = 1U << 0,
  /// The compiler's conversions (ImplicitCastExpr).
  ImplicitCasts = 1U << 1,
  /// Cleanups and constant-expression wrappers (FullExpr).
  FullExprs = 1U << 2,
  /// A temporary materialised to bind a reference (or take its address).
  MaterializedTemporaries = 1U << 3,
  /// The value of a non-type template argument in an instantiation.
  TemplateArguments = 1U << 4,
  /// Written casts: static_cast, C-style and functional casts.
  ExplicitCasts = 1U << 5,
  /// A functional cast `T(x)` of any kind.
  FunctionalCasts = 1U << 6,
  /// A functional cast `T(x)` that constructs (or converts without a
  /// conversion function).
  ConstructingCasts = 1U << 7,
  /// A functional cast to a tensor type, `torch::Tensor(x)`.
  TensorCasts = 1U << 8,
  /// A copy or move construction (not a written `T(a, b)`).
  CopiesAndMoves = 1U << 9,
  /// A construction from one argument by a converting constructor (an
  /// integer to a c10::Scalar).
  ConvertingConstructions = 1U << 10,
  /// A construction the code does not spell: no parentheses or braces (a
  /// `kCUDA` passed as a c10::Device).
  UnwrittenConstructions = 1U << 11,
  /// A construction from one argument, the others defaulted (not a written
  /// `T(a, b)`).
  OneArgumentConstructions = 1U << 12,
  /// A paren list or an initialiser list of one element.
  SingleElementLists = 1U << 13,
  /// A call of one argument that returns it (std::move, the table's
  /// PassesThrough rows).
  PassThroughCalls = 1U << 14,
  /// A tensor method the table says keeps the values (x.contiguous(),
  /// x.to(device)): its object.
  ValuePreservingMethods = 1U << 15,
  /// A construction from one argument, the others defaulted, written or
  /// not (`std::string("x")`'s literal, `c10::Scalar(0)`'s integer).
  AnyOneArgumentConstructions = 1U << 16,
  /// The compiler's conversions but an array's decay to a pointer (where
  /// a pointer's memory is an array's, the array is the answer).
  ImplicitCastsButDecay = 1U << 17,
  /// A `.` member access: the object it is a part of (`s.p = q` writes
  /// `s`). Not `->`: that object is elsewhere.
  DotMembers = 1U << 18,
  /// A construction from exactly one argument, written or not (a
  /// `thrust::device_ptr<T>(p)` of its pointer).
  SingleArgumentConstructions = 1U << 19,
  /// A temporary bound to its destructor (a class with one, a tensor).
  BoundTemporaries = 1U << 20,
};

/// Materialised and bound temporaries.
constexpr unsigned Temporaries = MaterializedTemporaries | BoundTemporaries;

// clang's own peels as sets (each equal to the clang function it names, node
// for node: PeelTest.ClangsIgnoresAreSets), for a match that wants exactly
// the node clang's Ignore* would give.
/// `IgnoreImpCasts`: implicit casts and full-expressions.
constexpr unsigned ImpCasts = ImplicitCasts | FullExprs;
/// `IgnoreParenImpCasts`: and parens, materialised temporaries and template
/// arguments' values (not bound temporaries: `IgnoreImplicit` has those).
constexpr unsigned ParenImpCasts =
    Parens | ImpCasts | MaterializedTemporaries | TemplateArguments;
/// `IgnoreCasts`: every cast, implicit or written, full-expressions,
/// materialised temporaries and template arguments' values.
constexpr unsigned Casts =
    ImpCasts | ExplicitCasts | MaterializedTemporaries | TemplateArguments;
/// `IgnoreParenCasts`: the same and parens.
constexpr unsigned ParenCasts = Parens | Casts;

/// What the compiler adds around a value, parentheses kept (clang's
/// `IgnoreImplicit`).
constexpr unsigned Implicit = ImplicitCasts | FullExprs | Temporaries;
/// What the compiler adds around a value, and parens.
constexpr unsigned Compiler = Parens | Implicit;
/// The same, and template arguments' values (`ParenImpCasts` and bound
/// temporaries).
constexpr unsigned AsComputed = Compiler | TemplateArguments;
/// What only converts a value: written casts too.
constexpr unsigned Converted = Compiler | ExplicitCasts;
/// The object a value is: through its copies and moves.
constexpr unsigned Copied = Compiler | CopiesAndMoves;
/// The same, parentheses kept (an expression as the code spells it).
constexpr unsigned CopiedInParens = Implicit | CopiesAndMoves;
/// The object a value is as computed: through its copies and moves and
/// template arguments' values (`Copied` and `AsComputed`).
constexpr unsigned CopiedAsComputed = AsComputed | CopiesAndMoves;
/// The value passed on: `CopiedAsComputed` and the calls that return their
/// argument (std::move).
constexpr unsigned PassedOn = CopiedAsComputed | PassThroughCalls;
/// The memory a pointer points at: through every cast but an array's decay
/// (a cast changes the pointer's type, not its memory).
constexpr unsigned SamePointer =
    Parens | FullExprs | ImplicitCastsButDecay | ExplicitCasts;
/// A value made from a literal: the literal, through one-argument
/// constructions (`std::string("x")`, a c10::Scalar from an integer).
constexpr unsigned FromLiteral = Implicit | AnyOneArgumentConstructions;
/// The tensor a value is: through copies and the conversions between
/// LibTorch's tensor classes (an index variable's value).
constexpr unsigned TensorValue = Copied | TensorCasts;

/// \p E without the wrappers of the steps in \p Set (null for null).
const clang::Expr *peel(const clang::Expr *E, unsigned Set);

/// \p E without one wrapper of a step in \p Set; \p E when none applies.
const clang::Expr *peelOne(const clang::Expr *E, unsigned Set);

/// A predicate on the value a peel has reached.
using ExprPredicate = llvm::function_ref<bool(const clang::Expr *)>;

/// \p E peeled with \p Set, and with \p Further too while \p Stop does not
/// hold of the value reached: the steps of \p Set are always taken, a step
/// of \p Further only from a value \p Stop rejects (a conversion followed
/// down to the value of the type wanted, `TensorOptions(kFloat)` to its
/// ScalarType, and not into `ScalarType(3)`'s integer).
const clang::Expr *peelUntil(const clang::Expr *E, unsigned Set,
                             unsigned Further, ExprPredicate Stop);

/// What a written functional cast `T(x)` is made of: \p E's subexpression
/// peeled with \p Set when \p E is one (the construction under
/// `torch::Device(kCUDA)`, the holder's under `Embedding(...)`); \p E when
/// it is none. One cast, where peel with FunctionalCasts in its set would
/// peel a run of them.
const clang::Expr *underFunctionalCast(const clang::Expr *E, unsigned Set);

/// A statement's parent (a ParentMap's, the ASTContext's), null at the top.
using ParentFn = llvm::function_ref<const clang::Stmt *(const clang::Stmt *)>;

/// peel's twin, upwards: the outermost expression that wraps \p E with
/// wrappers of the steps in \p Set only (each parent's peelOne is the node
/// below it), so that peel(climb(E, Set, Parent), Set) is E again. \p E
/// when its parent is no such wrapper; null for null.
const clang::Expr *climb(const clang::Expr *E, unsigned Set, ParentFn Parent);

/// The reference \p E is once the steps of \p Set are peeled (the name of a
/// variable, a parameter, a function), else null.
const clang::DeclRefExpr *declRef(const clang::Expr *E,
                                  unsigned Set = ParenImpCasts);

/// The declaration declRef(E, Set) names, else null.
const clang::ValueDecl *referencedDecl(const clang::Expr *E,
                                       unsigned Set = ParenImpCasts);

/// The variable declRef(E, Set) names, else null.
const clang::VarDecl *referencedVar(const clang::Expr *E,
                                    unsigned Set = ParenImpCasts);

/// \p ME is a member of the object the function runs on: `m` or `this->m`
/// (`this` through parens and the implicit conversion to a base class that
/// names a base's member). Not `other.m`, nor `p->m` of another pointer.
bool onThisObject(const clang::MemberExpr *ME);

/// The braced list `{a, b}` that \p E is written as: the list itself, or
/// bound to a std::initializer_list, or an object (an ArrayRef, a vector, an
/// index list) constructed from one with its other constructor arguments
/// defaulted, through the compiler's wrappers. Null when \p E is not a list
/// written there: a vector built elsewhere, `ArrayRef(data, n)`, a default
/// `ArrayRef()`.
const clang::InitListExpr *writtenList(const clang::Expr *E);

/// \p E is written as an empty list `{}`: an empty writtenList, or an
/// object constructed with no argument through the same steps (`{}` for an
/// ArrayRef parameter is its default constructor, `at::IntArrayRef()`, a
/// `std::vector<long>()` converted to one).
bool writtenEmptyList(const clang::Expr *E);

/// No argument of \p Call from \p First on was written: each is a default
/// (`t.contiguous()`, whose memory format is the default one).
bool noWrittenArgs(const clang::CallExpr *Call, unsigned First = 0);

/// No argument of the construction \p CE was written: `T()`, or each
/// argument a default (`TensorOptions()`, an empty optional).
bool noWrittenArgs(const clang::CXXConstructExpr *CE);

} // namespace torchtidy::peel

#endif
