// Placeholder: the benchmark journal generator is being written (issue 7).
print("bmvault-bench-journal: not written yet")
