//! Command lines: the simulator's verbs now; `etcdctl`, `etcdutl` and `kubectl` later.
