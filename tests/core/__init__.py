"""Core layer: the public library API only (what ``zeromem_cli`` exports: ``MemoryStore`` and
its methods, the records, the errors, ``Filters``) and the pure public functions of text/,
pack/, times, validation and transfer's readers. No CLI, no raw SQL, no store internals: this
is the contract suite a second backend (PostgreSQL) must pass as it is."""
