#include <userlib.h>
int use() { return 0; }
