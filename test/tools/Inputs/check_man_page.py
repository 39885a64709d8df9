#!/usr/bin/env python3
"""check_man_page.py MAN TORCH_TIDY DRIVER_MAIN: fails, naming them, when
options of `torch-tidy --help` (clang-tidy's) or of the driver (the option
list at the top of tools/driver/TorchTidyMain.cpp) are missing from the
man page MAN as groff renders it; also when groff warns about the page."""
import re
import subprocess
import sys

man, tidy, main_cpp = sys.argv[1:4]
render = subprocess.run(["groff", "-man", "-Tascii", "-ww", "-P-cbou", man],
                        capture_output=True, text=True)
if render.returncode != 0 or render.stderr.strip():
    sys.exit("groff: %s" % render.stderr)
text = render.stdout

helptext = subprocess.run([tidy, "--help"], capture_output=True, text=True).stdout
options = set()
for line in helptext.splitlines():
    m = re.match(r"^  (-{1,2}[a-z][a-z0-9-]*)", line)
    if m and m.group(1) not in ("--help-list",):
        options.add(m.group(1))
header = open(main_cpp, encoding="utf-8").read().split("#include")[0]
driver = set(re.findall(r"^//\s+(-{1,2}[a-z][a-z0-9-]*)", header, re.M))
driver |= set(re.findall(r"--[a-z][a-z0-9-]*", "\n".join(
    l for l in header.splitlines() if re.match(r"^//\s+-", l))))
if len(options) < 20 or len(driver) < 8:
    sys.exit("too few options found (%d in --help, %d in the driver's list): "
             "the parsing is out of date" % (len(options), len(driver)))
missing = sorted(o for o in options | driver
                 if not re.search(r"(?<![\w-])%s(?![\w-])" % re.escape(o), text))
if missing:
    sys.exit("missing from %s: %s" % (man, " ".join(missing)))
print("man page: %d clang-tidy and %d driver options documented"
      % (len(options), len(driver)))
