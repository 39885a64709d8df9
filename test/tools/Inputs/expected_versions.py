#!/usr/bin/env python3
"""expected_versions.py SRC_ROOT: prints the lines torch-tidy --version must
contain, from their sources of truth: project(VERSION) and
TORCHTIDY_TESTED_LIBTORCH_VERSION in CMakeLists.txt, and the LibTorch releases
that the suites run on (Debian's libtorch-dev, when dpkg knows it, and the one
tools/fetch-libtorch.sh fetches), so that the versions said and the versions
tested cannot drift apart."""
import re
import subprocess
import sys

cmake = open(sys.argv[1] + "/CMakeLists.txt", encoding="utf-8").read()
version = re.search(r"project\(torch-tidy VERSION (\S+)", cmake).group(1)
tested = re.search(r'set\(TORCHTIDY_TESTED_LIBTORCH_VERSION "([^"]+)"\)', cmake).group(1)
releases = tested.split(" and ")
# The second release is the one tools/fetch-libtorch.sh fetches.
fetched = re.search(r"^want=(\S+)", open(sys.argv[1] + "/tools/fetch-libtorch.sh").read(), re.M)
if len(releases) != 2 or not fetched or not releases[1].startswith(fetched.group(1) + "."):
    sys.exit("CMakeLists.txt says the checks were tested against LibTorch %s, but "
             "tools/fetch-libtorch.sh fetches %s" % (tested, fetched and fetched.group(1)))
try:
    installed = subprocess.run(
        ["dpkg-query", "-W", "-f=${Version}", "libtorch-dev"],
        capture_output=True, text=True).stdout
except OSError:
    installed = ""
if installed:
    # 1.13.1+dfsg-4 -> 1.13.1
    upstream = re.sub(r"^\d+:", "", installed).split("+")[0].split("-")[0]
    if upstream != releases[0]:
        sys.exit("CMakeLists.txt says the checks were tested against LibTorch %s, "
                 "but the suites run on libtorch-dev %s" % (tested, installed))
print("torch-tidy version %s" % version)
print("libtorch checks tested against LibTorch %s" % tested)
