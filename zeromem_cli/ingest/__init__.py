"""Zero-token writes: turn conversations and tool output into memories by deterministic rules.

The pipeline is split by job:

- ``formats``: detect and parse the input (chat JSON/JSONL, OpenAI message arrays, ``llm logs
  --json`` records, plain text, JSON tool results) into messages or key/value records.
- ``rules``: the rule model, the built-in English and Chinese rules, and the user's rules from
  the ``[ingest]`` table of the config file (validated, with an error naming the bad rule).
- ``extract``: sentences, guards (questions, hypotheticals, reported speech...), rule matching
  and cleaning: each message becomes a list of ``Candidate`` memories or forget requests.
- ``apply``: candidates written through ``MemoryStore.write`` / ``forget`` (or only planned,
  for a dry run), with a report of what happened.

No model is called anywhere: the same input and rules always give the same memories.
"""

from __future__ import annotations

from zeromem_cli.ingest.apply import IngestItem, IngestReport, apply_candidates
from zeromem_cli.ingest.extract import Candidate, extract_kv, extract_messages, extract_text
from zeromem_cli.ingest.formats import INPUT_FORMATS, Message, parse_input
from zeromem_cli.ingest.rules import IngestRuleError, Rule, builtin_rules, load_rules

__all__ = [
    "INPUT_FORMATS",
    "Candidate",
    "IngestItem",
    "IngestReport",
    "IngestRuleError",
    "Message",
    "Rule",
    "apply_candidates",
    "builtin_rules",
    "extract_kv",
    "extract_messages",
    "extract_text",
    "load_rules",
    "parse_input",
]
