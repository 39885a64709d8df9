//===--- LaunchSpelling.cpp - Kernel launches as clang reads them ---------===//

#include "LaunchSpelling.h"

#include "clang/Basic/LangOptions.h"
#include "clang/Basic/TokenKinds.h"
#include "clang/Lex/Lexer.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <utility>

namespace torchtidy::driver {
namespace {

struct Token {
  clang::tok::TokenKind Kind;
  size_t Begin;
  size_t End;
  bool IsOperator; // the keyword `operator`
};

std::vector<Token> lex(const std::string &Text) {
  clang::LangOptions Opts;
  Opts.CPlusPlus = Opts.CPlusPlus11 = Opts.CPlusPlus14 = Opts.CPlusPlus17 = 1;
  Opts.CUDA = 1;
  // As Lexer::ComputePreamble: a raw lexer of a buffer of no file.
  clang::Lexer L(clang::SourceLocation::getFromRawEncoding(1), Opts,
                 Text.c_str(), Text.c_str(), Text.c_str() + Text.size());
  std::vector<Token> Out;
  clang::Token Tok;
  while (true) {
    L.LexFromRawLexer(Tok);
    if (Tok.is(clang::tok::eof))
      break;
    const size_t End = L.getBufferLocation() - Text.c_str();
    const size_t Begin = End - Tok.getLength();
    Out.push_back({Tok.getKind(), Begin, End,
                   Tok.is(clang::tok::raw_identifier) &&
                       Tok.getRawIdentifier() == "operator"});
  }
  return Out;
}

/// How many of one bracket character a token is (`<<` two), 0 for others.
unsigned count(clang::tok::TokenKind K, bool Open) {
  using namespace clang::tok;
  if (Open)
    return K == less ? 1 : K == lessless ? 2 : K == lesslessless ? 3 : 0;
  return K == greater                 ? 1
         : K == greatergreater        ? 2
         : K == greatergreatergreater ? 3
                                      : 0;
}

bool onlySpace(llvm::StringRef Text) {
  return llvm::all_of(Text, [](char C) { return llvm::isSpace(C); });
}

/// The tokens from \p I that make three brackets (\p Open: `<`) spaced by
/// whitespace alone: the index past them, or 0 when they do not (or are
/// already one `<<<` token, which needs nothing).
size_t spacedTriple(const std::vector<Token> &Toks, size_t I, bool Open,
                    llvm::StringRef Text) {
  unsigned N = 0;
  size_t J = I;
  while (J < Toks.size() && N < 3) {
    const unsigned C = count(Toks[J].Kind, Open);
    if (C == 0 || N + C > 3)
      return 0;
    if (J > I && !onlySpace(Text.slice(Toks[J - 1].End, Toks[J].Begin)))
      return 0;
    N += C;
    ++J;
  }
  return N == 3 && J - I > 1 ? J : 0;
}

/// Writes the three brackets of Toks[I, J) first and the whitespace that
/// was between them after, in place.
void respell(std::string &Out, const std::vector<Token> &Toks, size_t I,
             size_t J, char Bracket) {
  const size_t Begin = Toks[I].Begin;
  const size_t End = Toks[J - 1].End;
  std::string Space;
  for (size_t K = Begin; K < End; ++K)
    if (Out[K] != Bracket)
      Space.push_back(Out[K]);
  const std::string New = std::string(3, Bracket) + Space;
  Out.replace(Begin, End - Begin, New);
}

/// The tokens [first, second) that close the configuration opened before
/// Toks[From]: three '>' (one `>>>`, or spaced) at the nesting the launch
/// began, before the statement ends; nullopt when there are none.
std::optional<std::pair<size_t, size_t>>
configurationEnd(const std::vector<Token> &Toks, size_t From,
                 llvm::StringRef Text) {
  using namespace clang::tok;
  int Depth = 0;
  for (size_t K = From; K < Toks.size(); ++K) {
    const TokenKind Kind = Toks[K].Kind;
    if (Kind == l_paren || Kind == l_square || Kind == l_brace) {
      ++Depth;
    } else if (Kind == r_paren || Kind == r_square || Kind == r_brace) {
      if (--Depth < 0)
        return std::nullopt;
    } else if (Depth == 0 && Kind == semi) {
      return std::nullopt;
    } else if (Depth == 0 && Kind == greatergreatergreater) {
      return std::make_pair(K, K + 1);
    } else if (Depth == 0) {
      if (const size_t End = spacedTriple(Toks, K, /*Open=*/false, Text))
        return std::make_pair(K, End);
    }
  }
  return std::nullopt;
}

/// Whether some '<' is followed, after whitespace, by another.
bool hasSpacedBrackets(llvm::StringRef Text) {
  for (size_t I = Text.find('<'); I != llvm::StringRef::npos;
       I = Text.find('<', I + 1)) {
    const size_t Next = Text.find_if_not(llvm::isSpace, I + 1);
    if (Next != I + 1 && Next != llvm::StringRef::npos && Text[Next] == '<')
      return true;
  }
  return false;
}

} // namespace

std::optional<std::string> respellSpacedLaunches(llvm::StringRef Text) {
  // Cheap test first: most files have no two '<' apart by whitespace.
  if (!hasSpacedBrackets(Text))
    return std::nullopt;
  // Respelled in place: every token keeps its offsets.
  std::string Out = Text.str();
  const std::vector<Token> Toks = lex(Out);
  bool Changed = false;
  for (size_t I = 0; I < Toks.size(); ++I) {
    if (I > 0 && Toks[I - 1].IsOperator)
      continue;
    const size_t OpenEnd = spacedTriple(Toks, I, /*Open=*/true, Text);
    if (!OpenEnd)
      continue;
    const std::optional<std::pair<size_t, size_t>> Close =
        configurationEnd(Toks, OpenEnd, Text);
    if (!Close)
      continue;
    const auto [CloseBegin, CloseEnd] = *Close;
    if (CloseEnd - CloseBegin > 1)
      respell(Out, Toks, CloseBegin, CloseEnd, '>');
    respell(Out, Toks, I, OpenEnd, '<');
    Changed = true;
    I = CloseEnd - 1;
  }
  if (!Changed)
    return std::nullopt;
  return Out;
}

bool isCudaSourceName(llvm::StringRef Path) {
  const llvm::StringRef Ext = llvm::sys::path::extension(Path);
  return Ext.equals_insensitive(".cu") || Ext.equals_insensitive(".cuh");
}

namespace {

/// A file whose text was respelled; its status is the file's on disk (the
/// size is the same).
class RespelledFile : public llvm::vfs::File {
public:
  RespelledFile(llvm::vfs::Status S, std::string Text)
      : S(std::move(S)), Text(std::move(Text)) {}
  llvm::ErrorOr<llvm::vfs::Status> status() override { return S; }
  llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>>
  getBuffer(const llvm::Twine &Name, int64_t /*FileSize*/,
            bool /*RequiresNullTerminator*/, bool /*IsVolatile*/) override {
    // A copy is null-terminated.
    return llvm::MemoryBuffer::getMemBufferCopy(Text, Name.str());
  }
  std::error_code close() override { return {}; }

private:
  llvm::vfs::Status S;
  std::string Text;
};

class LaunchRespellingFS : public llvm::vfs::ProxyFileSystem {
public:
  using ProxyFileSystem::ProxyFileSystem;

  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>>
  openFileForRead(const llvm::Twine &Path) override {
    auto F = ProxyFileSystem::openFileForRead(Path);
    const std::string Name = Path.str();
    if (!F || !isCudaSourceName(Name))
      return F;
    auto S = (*F)->status();
    auto Buf = (*F)->getBuffer(Name);
    if (!S || !Buf)
      return F;
    std::optional<std::string> New = respellSpacedLaunches((*Buf)->getBuffer());
    if (!New)
      return ProxyFileSystem::openFileForRead(Path);
    return std::unique_ptr<llvm::vfs::File>(
        std::make_unique<RespelledFile>(*S, std::move(*New)));
  }
};

} // namespace

llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> launchRespellingFileSystem(
    llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> Base) {
  return llvm::makeIntrusiveRefCnt<LaunchRespellingFS>(std::move(Base));
}

} // namespace torchtidy::driver
