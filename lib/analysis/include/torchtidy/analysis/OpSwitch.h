//===--- OpSwitch.h - Per-op transfer chosen by the op table ----*- C++ -*-===//
//
// An analysis's transfer function for calls, as one dispatch: an ordered
// list of cases, each a pattern of what the op table says of the call (the
// callee's form, its facts, its name in the table, the number of arguments)
// and an action. The first case whose pattern matches and whose action
// gives a result decides; an action may decline (no result) and let the
// next case try, for a case that needs more than the table to decide
// (`ids.split(n)[0]`, an index op's source). It is to TorchOps.def what
// clang's CFGMatchSwitch (FlowSensitive/MatchSwitch.h) is to AST matchers:
// clang's UncheckedOptionalAccessModel builds its transfer with one, each
// analysis here builds its own once (a function-local static) and keeps it.
// What the table says of a call is read once per call (OpCall), not once
// per test.
//
//   static const OpSwitch<Range, Impl &> Transfer =
//       OpSwitch<Range, Impl &>()
//           .caseOf(facts(op::PassesThrough).args(1),
//                   [](const OpCall &C, Impl &I) { return I.of(C.arg(0)); })
//           .caseOf(form(op::Aten).named({op::Named::where}), ...);
//   Range R = Transfer(OpCall::of(Call), Range::opaque(), *this);
//
//===----------------------------------------------------------------------===//

#ifndef TORCHTIDY_ANALYSIS_OPSWITCH_H
#define TORCHTIDY_ANALYSIS_OPSWITCH_H

#include "torchtidy/analysis/TorchOps.h"

#include "llvm/ADT/SmallVector.h"

#include <functional>
#include <initializer_list>
#include <optional>
#include <utility>
#include <vector>

namespace clang {
class CallExpr;
class Expr;
class FunctionDecl;
} // namespace clang

namespace torchtidy {

/// What the op table says of one call, read once: its direct callee (null
/// for a call through a pointer), the callee's form and the call's facts
/// (callFacts).
struct OpCall {
  const clang::CallExpr *Call = nullptr;
  const clang::FunctionDecl *Callee = nullptr;
  op::Form Form = op::NoForm;
  op::FactSet Facts;

  static OpCall of(const clang::CallExpr *Call);
};

/// Which calls a case takes: each part that is set must hold, and a pattern
/// with no part set takes every call.
class OpPattern {
public:
  /// The callee's form is one of \p Fs (op::NoForm among them for a
  /// callee the table places nowhere, or no callee).
  OpPattern &forms(std::initializer_list<op::Form> Fs);
  /// The call has one of \p Facts at least.
  OpPattern &anyOf(op::FactSet Facts);
  /// The call has none of \p Facts.
  OpPattern &noneOf(op::FactSet Facts);
  /// The callee is one of the table's named ops \p Ns
  /// (TORCHTIDY_NAMED_OP rows).
  OpPattern &named(std::initializer_list<op::Named> Ns);
  /// The call has exactly \p N arguments (an operator's object and a
  /// member call's arguments as the CallExpr counts them).
  OpPattern &args(unsigned N);

  bool matches(const OpCall &C) const;

private:
  llvm::SmallVector<op::Form, 3> Forms;
  std::optional<op::FactSet> AnyFacts;
  op::FactSet NoFacts;
  llvm::SmallVector<op::Named, 2> Names;
  std::optional<unsigned> NumArgs;
};

/// The patterns a case list is written with: `facts(op::A | op::B)`,
/// `form(op::Method).anyOf(op::C)`, `named({op::Named::where})`, `anyCall()`.
inline OpPattern anyCall() { return {}; }
inline OpPattern facts(op::FactSet Facts) { return OpPattern().anyOf(Facts); }
inline OpPattern form(op::Form F) { return OpPattern().forms({F}); }
inline OpPattern named(std::initializer_list<op::Named> Names) {
  return OpPattern().named(Names);
}

/// An ordered list of (pattern, action) cases over calls, with \p Args
/// passed on to each action (the analysis, the function, ...).
template <typename Result, typename... Args> class OpSwitch {
public:
  /// An action gives a result, or none to let the next case try.
  using Action = std::function<std::optional<Result>(const OpCall &, Args...)>;

  /// Adds a case after those added before.
  OpSwitch &&caseOf(OpPattern P, Action A) && {
    Cases.push_back({std::move(P), std::move(A)});
    return std::move(*this);
  }

  /// The result of the first case that matches \p C and gives one; none
  /// when no case does.
  std::optional<Result> find(const OpCall &C, Args... A) const {
    for (const Case &K : Cases)
      if (K.Pattern.matches(C))
        if (std::optional<Result> R = K.Act(C, A...))
          return R;
    return std::nullopt;
  }

  /// The result of the first case that matches \p C and gives one, else
  /// \p Otherwise.
  Result operator()(const OpCall &C, Result Otherwise, Args... A) const {
    if (std::optional<Result> R = find(C, A...))
      return std::move(*R);
    return Otherwise;
  }

  size_t size() const { return Cases.size(); }

private:
  struct Case {
    OpPattern Pattern;
    Action Act;
  };
  std::vector<Case> Cases;
};

} // namespace torchtidy

#endif // TORCHTIDY_ANALYSIS_OPSWITCH_H
