"""``zeromem setup HARNESS``: zeromem's entries merged into an agent harness's own files.

``targets`` says which files each harness reads (user or project level); ``entries`` builds
the hook commands and the MCP server entry and recognises them again; ``jsonfile`` /
``tomlfile`` / ``instructions`` merge into and remove from one kind of file each, leaving
everything else as it was; ``plan`` turns the result into file changes: a unified diff for
``--dry-run``, else a backup of each changed file and an atomic write.
"""
