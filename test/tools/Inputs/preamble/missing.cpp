#include <torch/torch.h>
#include <no_such_header.h>
int f() { return 0; }
