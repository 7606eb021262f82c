"""zeromem benchmarks: retrieval quality, pack recall and speed. See docs/benchmarks.md."""
