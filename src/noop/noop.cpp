// dlcbench-noop: the trivial process of the startup workload. Static, so its
// own start costs no dynamic loading and the figure is the environment's.
int main() { return 0; }
