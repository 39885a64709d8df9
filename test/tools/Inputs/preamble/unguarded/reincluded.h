// A system header meant to be included more than once, as <cassert> is: no
// guard, and nothing in it that a second #include would redefine.
#undef TWICE
#define TWICE(x) (2 * (x))
