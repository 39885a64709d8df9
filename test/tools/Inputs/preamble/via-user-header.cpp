#include "model.h"

BImplFromHeader::BImplFromHeader() { v = torch::zeros({3}); }
