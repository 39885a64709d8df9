//===--- OpSwitch.cpp - Per-op transfer chosen by the op table ------------===//

#include "torchtidy/analysis/OpSwitch.h"

#include "clang/AST/Expr.h"
#include "llvm/ADT/STLExtras.h"

using namespace clang;

namespace torchtidy {

OpCall OpCall::of(const CallExpr *Call) {
  OpCall C;
  C.Call = Call;
  if (!Call)
    return C;
  C.Callee = Call->getDirectCallee();
  C.Form = formOf(C.Callee);
  C.Facts = callFacts(Call, C.Form);
  return C;
}

OpPattern &OpPattern::forms(std::initializer_list<op::Form> Fs) {
  Forms.append(Fs.begin(), Fs.end());
  return *this;
}

OpPattern &OpPattern::anyOf(op::FactSet Facts) {
  AnyFacts = AnyFacts ? (*AnyFacts | Facts) : Facts;
  return *this;
}

OpPattern &OpPattern::noneOf(op::FactSet Facts) {
  NoFacts |= Facts;
  return *this;
}

OpPattern &OpPattern::named(std::initializer_list<op::Named> Ns) {
  Names.append(Ns.begin(), Ns.end());
  return *this;
}

OpPattern &OpPattern::args(unsigned N) {
  NumArgs = N;
  return *this;
}

bool OpPattern::matches(const OpCall &C) const {
  if (!C.Call)
    return false;
  if (!Forms.empty() && !llvm::is_contained(Forms, C.Form))
    return false;
  if (AnyFacts && !(C.Facts & *AnyFacts))
    return false;
  if (C.Facts & NoFacts)
    return false;
  if (!Names.empty() &&
      llvm::none_of(Names, [&](op::Named N) { return hasOpName(C.Callee, N); }))
    return false;
  return !NumArgs || C.Call->getNumArgs() == *NumArgs;
}

} // namespace torchtidy
