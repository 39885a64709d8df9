#!/usr/bin/env bash
# Runs a command in which no file may grow (ulimit -f 0), and a write past the
# limit fails with EFBIG instead of ending the process (SIGXFSZ ignored): a
# full disk as a worker meets it. Prints the command's output, then its exit
# status. The caller must read the output through a pipe: a file would be
# limited too.
trap '' XFSZ
ulimit -f 0
"$@" 2>&1
echo "exit status $?"
