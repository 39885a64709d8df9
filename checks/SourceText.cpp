//===--- SourceText.cpp - Code as messages and fix-its quote it -----------===//

#include "SourceText.h"
#include "torchtidy/analysis/Peel.h"

#include "clang/AST/ExprCXX.h"
#include "clang/Basic/SourceManager.h"
#include "clang/Lex/Lexer.h"

namespace clang::tidy::libtorch {

std::string withoutComments(llvm::StringRef Text) {
  std::string Out;
  Out.reserve(Text.size());
  bool PendingSpace = false;
  auto Emit = [&](char C) {
    if (PendingSpace && !Out.empty())
      Out += ' ';
    PendingSpace = false;
    Out += C;
  };
  for (size_t I = 0; I < Text.size(); ++I) {
    const char C = Text[I];
    // String and character literals are copied whole.
    if (C == '"' || C == '\'') {
      const char Quote = C;
      Emit(C);
      for (++I; I < Text.size(); ++I) {
        Out += Text[I];
        if (Text[I] == '\\' && I + 1 < Text.size()) {
          Out += Text[++I];
          continue;
        }
        if (Text[I] == Quote)
          break;
      }
      continue;
    }
    if (C == '/' && I + 1 < Text.size() && Text[I + 1] == '/') {
      while (I < Text.size() && Text[I] != '\n')
        ++I;
      PendingSpace = true;
      continue;
    }
    if (C == '/' && I + 1 < Text.size() && Text[I + 1] == '*') {
      const size_t End = Text.find("*/", I + 2);
      I = End == llvm::StringRef::npos ? Text.size() : End + 1;
      PendingSpace = true;
      continue;
    }
    if (C == ' ' || C == '\t' || C == '\n' || C == '\r' || C == '\f' ||
        C == '\v') {
      PendingSpace = true;
      continue;
    }
    // No space left inside brackets where a comment was: `f(/*x=*/1)`.
    if (PendingSpace && !Out.empty() &&
        (Out.back() == '(' || Out.back() == '[' || C == ')' || C == ']' ||
         C == ','))
      PendingSpace = false;
    Emit(C);
  }
  return Out;
}

CharSourceRange fileRange(const Expr *E, const ASTContext &Ctx) {
  if (!E)
    return {};
  return Lexer::makeFileCharRange(
      CharSourceRange::getTokenRange(E->getSourceRange()),
      Ctx.getSourceManager(), Ctx.getLangOpts());
}

llvm::StringRef fileText(const Expr *E, const ASTContext &Ctx) {
  const CharSourceRange Range = fileRange(E, Ctx);
  if (Range.isInvalid())
    return "";
  return Lexer::getSourceText(Range, Ctx.getSourceManager(), Ctx.getLangOpts());
}

CharSourceRange writtenRange(const Expr *E, const ASTContext &Ctx) {
  if (!E || E->getBeginLoc().isMacroID() || E->getEndLoc().isMacroID())
    return {};
  return fileRange(E, Ctx);
}

/// The text of \p E where it is spelled, when the whole expression is
/// spelled in one macro's definition (`y.data<scalar_t>()` in the body of
/// a macro that launches a kernel), without the line continuations.
static std::string spelledInMacro(const Expr *E, const ASTContext &Ctx) {
  const SourceManager &SM = Ctx.getSourceManager();
  SourceLocation B = E->getBeginLoc(), End = E->getEndLoc();
  if (!B.isMacroID() || !End.isMacroID())
    return "";
  B = SM.getSpellingLoc(B);
  End = SM.getSpellingLoc(End);
  if (SM.getFileID(B) != SM.getFileID(End) ||
      SM.getFileOffset(End) < SM.getFileOffset(B))
    return "";
  const CharSourceRange Range = CharSourceRange::getTokenRange(B, End);
  const llvm::StringRef Text =
      Lexer::getSourceText(Range, SM, Ctx.getLangOpts());
  std::string Out;
  for (size_t I = 0; I < Text.size(); ++I) {
    if (Text[I] == '\\' && I + 1 < Text.size() && Text[I + 1] == '\n') {
      Out += ' ';
      ++I;
      continue;
    }
    Out += Text[I];
  }
  return Out;
}

std::string quotedText(const Expr *E, const ASTContext &Ctx) {
  return withoutComments(fileText(E, Ctx));
}

std::string quotedOrSpelledText(const Expr *E, const ASTContext &Ctx) {
  if (!E)
    return "";
  const std::string Text = quotedText(E, Ctx);
  return Text.empty() ? withoutComments(spelledInMacro(E, Ctx)) : Text;
}

bool needsParensForMember(const Expr *E) {
  if (!E)
    return false;
  E = torchtidy::peel::peel(E, torchtidy::peel::CopiedInParens);
  if (isa<DeclRefExpr, MemberExpr, ParenExpr, IntegerLiteral, CXXThisExpr,
          ArraySubscriptExpr, StringLiteral>(E))
    return false;
  if (const auto *Op = dyn_cast<CXXOperatorCallExpr>(E)) {
    const OverloadedOperatorKind K = Op->getOperator();
    return K != OO_Subscript && K != OO_Call && K != OO_Arrow;
  }
  return !isa<CallExpr>(E);
}

std::string receiverText(const Expr *E, const ASTContext &Ctx) {
  std::string Text = quotedText(E, Ctx);
  if (Text.empty() || !needsParensForMember(E))
    return Text;
  return "(" + Text + ")";
}

std::string opCallText(torchtidy::op::Named N, llvm::StringRef Args) {
  return (torchtidy::opName(N) + "(" + Args + ")").str();
}

std::string writtenText(const Expr *E, const ASTContext &Ctx) {
  const CharSourceRange Range = writtenRange(E, Ctx);
  if (Range.isInvalid())
    return "";
  return Lexer::getSourceText(Range, Ctx.getSourceManager(), Ctx.getLangOpts())
      .str();
}

llvm::StringRef indentationAt(SourceLocation Loc, const SourceManager &SM) {
  if (Loc.isInvalid() || Loc.isMacroID())
    return "";
  auto [File, Offset] = SM.getDecomposedLoc(Loc);
  bool Invalid = false;
  const StringRef Buffer = SM.getBufferData(File, &Invalid);
  if (Invalid || Offset > Buffer.size())
    return "";
  size_t LineStart = Offset == 0 ? 0 : Buffer.rfind('\n', Offset - 1);
  LineStart = LineStart == StringRef::npos || Offset == 0 ? 0 : LineStart + 1;
  const StringRef Indent = Buffer.slice(LineStart, Offset);
  return Indent.trim().empty() ? Indent : "";
}

SourceLocation locationOf(const torchtidy::SourcePlace &P, SourceManager &SM) {
  if (P.File.empty() || P.Line == 0)
    return {};
  OptionalFileEntryRef FE = SM.getFileManager().getOptionalFileRef(P.File);
  if (!FE)
    return {};
  const FileID FID = SM.getOrCreateFileID(*FE, SrcMgr::C_User);
  return SM.translateLineCol(FID, P.Line, std::max(1U, P.Column));
}

void notePlace(ClangTidyCheck &Check, const torchtidy::SourcePlace &P,
               llvm::StringRef Text, SourceLocation Fallback,
               SourceManager &SM) {
  const SourceLocation L = locationOf(P, SM);
  if (L.isValid())
    Check.diag(L, Text, DiagnosticIDs::Note);
  else
    Check.diag(
        Fallback,
        (Text + " (" + P.File + ":" + std::to_string(P.Line) + ")").str(),
        DiagnosticIDs::Note);
}

} // namespace clang::tidy::libtorch
