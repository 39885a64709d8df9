#!/usr/bin/env python3
"""hold_preamble_lock.py CACHE_DIR AGE [--release-after S] -- CMD...

Plays another torch-tidy process that is building the preamble entry of
CACHE_DIR (its one <key>.h): writes the entry's lock file as
llvm::LockFileManager does ("<host> <pid>", this live process), dated AGE
seconds ago, runs CMD, and removes the lock when CMD ends or, with
--release-after, after S seconds (the build "finished" without an entry).
Exits with CMD's status (preamble-cache.test)."""
import glob
import os
import socket
import subprocess
import sys
import threading
import time

args = sys.argv[1:]
cut = args.index("--")
opts, cmd = args[:cut], args[cut + 1:]
cache, age = opts[0], float(opts[1])
release = float(opts[opts.index("--release-after") + 1]) if "--release-after" in opts else None
headers = glob.glob(os.path.join(cache, "*.h"))
if len(headers) != 1:
    sys.exit("expected one preamble header in %s, found %s" % (cache, headers))
lock = headers[0][:-2] + ".pch.lock"
with open(lock, "w") as f:
    f.write("%s %d" % (socket.gethostname(), os.getpid()))
when = time.time() - age
os.utime(lock, (when, when))


def unlock():
    if os.path.exists(lock):
        os.remove(lock)


if release is not None:
    threading.Timer(release, unlock).start()
rc = subprocess.call(cmd)
unlock()
sys.exit(rc)
