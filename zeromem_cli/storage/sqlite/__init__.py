"""The SQLite backend: one file per store, FTS5 for search (see ``zeromem_cli.storage``)."""
