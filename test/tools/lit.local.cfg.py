# Which of the tool suite's tests run (lit --param tool_tests=...):
#   all           every test (the default)
#   instrumented  the tests that run the driver's and the plugin's code: the
#                 sanitizer build runs these (tools/sanitize.sh)
#   plain         the others, which run no code of the build or only code the
#                 rest of the suite runs: tools/test.sh runs just these in
#                 ctest's lit.tools when the sanitizer part follows, so that
#                 no tool test runs twice in one test command
#   llvm          the instrumented ones and those of the plain ones whose
#                 result depends on the LLVM the tools are built with
#                 (docs-ci: CMAKE_CXX_CLANG_TIDY's command runs the plugin):
#                 the second LLVM's build runs these (tools/ci-llvm22.sh)
# The plain ones: the stress runner on a fake torch-tidy, clang-format-19 on
# the sources, actionlint on action.yml, .ci/run on stand-ins; the wrappers'
# own scripts around the driver (the GitHub Action, the pre-commit hook, the
# commands of docs/ci.md), whose driver options the instrumented tests run
# (changed-lines, sarif, exit-status, project-mode); and identical-findings,
# which runs every check input four more times in code the check suite and
# preamble-cache.test already run.
import os

PLAIN = {"stress-runner.test", "format.test", "action-lint.test", "ci-run.test",
         "action.test", "pre-commit-hooks.test", "docs-ci.test", "identical-findings.test"}
LLVM_DEPENDENT = {"docs-ci.test"}

_which = lit_config.params.get("tool_tests", "all")
if _which not in ("all", "instrumented", "plain", "llvm"):
    lit_config.fatal("tool_tests=%s: expected all, instrumented, plain or llvm" % _which)
_here = os.path.dirname(os.path.abspath(__file__))
_missing = sorted(t for t in PLAIN if not os.path.exists(os.path.join(_here, t)))
if _missing:
    lit_config.fatal("test/tools/lit.local.cfg.py names tests that are not there: %s"
                     % ", ".join(_missing))
if not LLVM_DEPENDENT <= PLAIN:
    lit_config.fatal("test/tools/lit.local.cfg.py: LLVM_DEPENDENT names tests that are not "
                     "plain: %s" % ", ".join(sorted(LLVM_DEPENDENT - PLAIN)))
if _which == "instrumented":
    config.excludes = set(config.excludes) | PLAIN
elif _which == "llvm":
    config.excludes = set(config.excludes) | (PLAIN - LLVM_DEPENDENT)
elif _which == "plain":
    config.excludes = set(config.excludes) | {
        t for t in os.listdir(_here)
        if os.path.splitext(t)[1] in config.suffixes and t not in PLAIN}
