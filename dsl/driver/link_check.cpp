// The program of a layer's link check (dsl/CMakeLists.txt): it calls nothing;
// the linker resolves every object of the layer against the layers below.
int main() { return 0; }
