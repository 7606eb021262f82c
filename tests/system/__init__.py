"""System layer: real processes and real SQLite files below the public API: concurrency and
crashes, start-up imports, fuzzing, migrations on disk, the FTS5 index and column layout, the
bounded-ranking window, benchmark smoke runs and completion drift."""
