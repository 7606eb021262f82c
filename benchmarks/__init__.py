"""zeromem benchmarks: retrieval quality, pack recall and speed. See benchmarks/README.md."""
