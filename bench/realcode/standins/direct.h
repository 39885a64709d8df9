// A stand-in for MSVC's <direct.h>, for the real-code evaluation only
// (projects.json: {standins}). TorchDiffusion's src/utils/path.h includes it
// unconditionally and uses what is declared here; MSVC's headers also bring
// in strlen and strchr, which libstdc++'s <iostream> does not.
#pragma once
#include <string.h>

#define _MAX_PATH 260
int mkdir(const char *Path);
