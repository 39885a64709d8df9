#include <no_such_header.h>
#include <torch/torch.h>
int f() { return 0; }
