"""The agent memory loop, with zeromem: recall -> compact prompt -> LLM -> rule-based write.

Each turn:

1. recall: ``MemoryStore.pack`` picks the memories relevant to the message that fit a token
   budget (zero LLM tokens spent on choosing them);
2. compact prompt: that block is the system prompt, so the model sees a few hundred tokens
   of memory instead of the whole history;
3. LLM: the call goes through the ``llm`` Python API, to any model you have set up for it
   (``llm models``; ``llm-echo``'s ``echo`` model needs no key);
4. rule-based write: zeromem's ingest rules keep what the user said to keep ("remember
   that...", "I prefer...", "my X is Y", "forget...") - no model decides what is stored.

Run it as is::

    python examples/memory_loop.py --model echo "Remember that I take my coffee black"
    python examples/memory_loop.py --model echo "How do I take my coffee?"
    python examples/memory_loop.py --model gpt-4o-mini          # a chat on stdin, one line a turn

Memories live in zeromem's usual database (``--db`` or ``ZEROMEM_DB`` to choose another), so
``zeromem search coffee`` finds them too, and the next run remembers.
"""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field

import llm

from zeromem_cli import MemoryStore
from zeromem_cli.config import load_config
from zeromem_cli.ingest import Message, apply_candidates, extract_messages, load_rules

SYSTEM = "You are a helpful assistant. What you know about the user:\n{memories}"


@dataclass
class Turn:
    """What one turn did: the memory block the model saw, its reply, and what was stored."""

    memories: str
    reply: str
    stored: list[str] = field(default_factory=list)
    forgotten: int = 0


def turn(store: MemoryStore, model: llm.Model, message: str, budget: int = 400) -> Turn:
    recalled = store.pack(message, budget=budget)  # 1. recall, within a token budget
    system = SYSTEM.format(memories=recalled.text or "(nothing yet)")  # 2. compact prompt
    reply = model.prompt(message, system=system).text()  # 3. LLM
    config = load_config()  # 4. rule-based write
    rules = load_rules(config.extra.get("ingest"), origin=f"config {config.path}")
    candidates = extract_messages([Message("user", message, 0)], rules)
    done = Turn(recalled.text, reply)
    for item in apply_candidates(store, candidates, source="memory_loop"):
        if item.action in ("added", "updated"):
            done.stored.append(item.candidate.content)
        elif item.action == "forgotten":
            done.forgotten += len(item.memory_ids)
    return done


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Chat with a model that remembers, via zeromem.")
    parser.add_argument("message", nargs="*", help="one message (default: a chat on stdin)")
    parser.add_argument("--model", help="an llm model id (default: llm's default model)")
    parser.add_argument("--db", help="the zeromem database (default: zeromem's own)")
    parser.add_argument("--user", help="whose memory (default: ZEROMEM_USER)")
    parser.add_argument("--budget", type=int, default=400, help="memory tokens per prompt")
    args = parser.parse_args(argv)
    try:
        model = llm.get_model(args.model) if args.model else llm.get_model()
    except llm.UnknownModelError as exc:
        print(f"memory_loop: {exc}", file=sys.stderr)
        return 2
    messages = [" ".join(args.message)] if args.message else (line.strip() for line in sys.stdin)
    with MemoryStore(args.db, user=args.user) as store:
        for message in messages:
            if not message:
                continue
            result = turn(store, model, message, args.budget)
            print(result.reply)
            for text in result.stored:
                print(f"[remembered] {text}", file=sys.stderr)
            if result.forgotten:
                print(f"[forgot {result.forgotten}]", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
