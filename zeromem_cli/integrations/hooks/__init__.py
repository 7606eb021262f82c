"""``zeromem hook HARNESS EVENT``: memory injected at session start and per prompt, transcripts
ingested before compaction and at the end of a turn or session. See ``runner``."""
