#!/usr/bin/env python3
"""new_build_id.py BINARY COPY: copies an ELF executable and changes one byte
of its GNU build-id (the NT_GNU_BUILD_ID note), so that the copy runs the
same code but says it is another build (results-cache.test)."""
import os
import shutil
import struct
import sys

src, dst = sys.argv[1], sys.argv[2]
data = bytearray(open(src, "rb").read())
# Elf64_Nhdr of the note: namesz 4, descsz (20 for sha1), type 3, "GNU\0".
for descsz in (20, 16, 8, 32):
    header = struct.pack("<III", 4, descsz, 3) + b"GNU\0"
    at = data.find(header)
    if at >= 0:
        break
else:
    sys.exit("no GNU build-id note in " + src)
desc = at + len(header)
data[desc] ^= 0xFF
open(dst, "wb").write(data)
shutil.copymode(src, dst)
